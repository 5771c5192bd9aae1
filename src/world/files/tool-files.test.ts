import { describe, expect, it } from "vitest";
import type { MessageFile } from "../records.js";
import { isToolFilesMessage, outboundFilesOf, toolFilesCaption, toolFilesMessageId } from "./tool-files.js";

const png: MessageFile = { name: "chart.png", mediaType: "image/png", size: 3, bytes: Uint8Array.from([1, 2, 3]) };
const csv: MessageFile = {
  name: "a.csv",
  mediaType: "text/plain; charset=utf-8",
  size: 2,
  bytes: Uint8Array.from([4, 5]),
};
const big: MessageFile = { name: "dump.bin", mediaType: "application/octet-stream", size: 3 << 20, refusal: "too big" };

describe("a tool call's files message", () => {
  it("has an id from the call, and is the agent's", () => {
    const id = toolFilesMessageId("in-1>alice#1.0");
    expect(id).toBe("in-1>alice#1.0:tool-files");
    expect(isToolFilesMessage({ id, author: { kind: "agent" } })).toBe(true);
    expect(isToolFilesMessage({ id, author: { kind: "human" } })).toBe(false);
    expect(isToolFilesMessage({ id: "in-1>alice#1", author: { kind: "agent" } })).toBe(false);
  });

  it("names what was posted and what was not", () => {
    expect(toolFilesCaption("notes__chart", [png])).toBe("chart.png from notes__chart");
    expect(toolFilesCaption("shell_cmd", [png, csv, big])).toBe(
      "chart.png, a.csv from shell_cmd\nNot posted: dump.bin (too big, 3.0 MiB).",
    );
  });

  it("is posted as its files with bytes, after its text (no caption)", async () => {
    let reads = 0;
    const store = {
      messageFiles: async () => {
        reads += 1;
        return [png, big, csv];
      },
    };
    const files = await outboundFilesOf(store, { id: "m", fileCount: 3 });
    expect(files).toEqual([
      { name: "chart.png", mimeType: "image/png", bytes: png.bytes },
      { name: "a.csv", mimeType: "text/plain; charset=utf-8", bytes: csv.bytes },
    ]);
    expect(await outboundFilesOf(store, { id: "m" })).toEqual([]);
    expect(reads).toBe(1);
  });
});
