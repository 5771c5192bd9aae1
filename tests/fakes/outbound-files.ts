import type { OutboundFile } from "../../src/world/delivery/primitives.js";
import type { Author } from "../../src/world/message.js";
import { onePixelPng } from "./mcp-notes-tools.js";

/** The files the platforms' upload tests post: an image a tool returned and a CSV it wrote. */
export const alice: Author = { kind: "agent", id: "alice", name: "alice" };

export const png: OutboundFile = {
  name: "chart.png",
  mimeType: "image/png",
  bytes: new Uint8Array(Buffer.from(onePixelPng, "base64")),
  caption: "chart.png from notes__picture",
};

export const csv: OutboundFile = {
  name: "report.csv",
  mimeType: "text/plain; charset=utf-8",
  bytes: new TextEncoder().encode("a,b\n1,2\n"),
  caption: "report.csv from shell_cmd",
};
