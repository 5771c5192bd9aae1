import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/** Where the notes live: a `notes.json` in a directory, or memory. */
export class NotesStore {
  private memory: string[] = [];

  constructor(private readonly directory?: string) {}

  all(): string[] {
    if (!this.directory) return [...this.memory];
    try {
      return JSON.parse(readFileSync(path.join(this.directory, "notes.json"), "utf8")) as string[];
    } catch {
      return [];
    }
  }

  add(text: string): number {
    const notes = [...this.all(), text];
    if (this.directory) {
      mkdirSync(this.directory, { recursive: true });
      writeFileSync(path.join(this.directory, "notes.json"), JSON.stringify(notes));
    } else {
      this.memory = notes;
    }
    return notes.length;
  }
}

export interface NotesServerOptions {
  notes: NotesStore;
  /** What `crash` does; the stdio server exits the process mid-call. Absent: no `crash` tool. */
  crash?: () => void;
}

/** The `picture` tool's image, base64. */
export const onePixelPng =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** The `report` tool's file, base64 (`region,total` and two rows). */
export const reportCsvBase64 = Buffer.from("region,total\nnorth,12\nsouth,30\n").toString("base64");

/**
 * A small MCP server written with the real SDK, for tests: `add`, `list`, `fail` (isError),
 * `slow` (sleeps), `picture` (an image), `report` (a resource blob), `env` (reads an environment variable),
 * `crash` (dies mid-call, stdio only).
 */
export function createNotesServer(options: NotesServerOptions): McpServer {
  const server = new McpServer({ name: "notes", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Add a note.", inputSchema: { text: z.string().min(1) } },
    async ({ text }) => ({ content: [{ type: "text", text: `added note ${options.notes.add(text)}` }] }),
  );
  server.registerTool("list", { description: "List all notes." }, async () => {
    const notes = options.notes.all();
    const text = notes.length === 0 ? "no notes" : notes.map((note, index) => `${index + 1}. ${note}`).join("\n");
    return { content: [{ type: "text", text }] };
  });
  server.registerTool(
    "fail",
    { description: "Answer with an error.", inputSchema: { message: z.string().optional() } },
    async ({ message }) => ({ isError: true, content: [{ type: "text", text: message ?? "it failed on purpose" }] }),
  );
  server.registerTool(
    "slow",
    { description: "Sleep, then answer.", inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }, extra) => {
      // Stop sleeping when the client cancels, so the process can end when its stdin closes.
      await sleep(ms, undefined, { signal: extra.signal }).catch(() => undefined);
      return { content: [{ type: "text", text: `slept ${ms} ms` }] };
    },
  );
  server.registerTool("picture", { description: "Answer with a picture and a caption." }, async () => ({
    content: [
      { type: "text", text: "a dot" },
      { type: "image", data: onePixelPng, mimeType: "image/png" },
    ],
  }));
  server.registerTool("report", { description: "Answer with a CSV file as an embedded resource." }, async () => ({
    content: [
      { type: "text", text: "the report" },
      {
        type: "resource",
        resource: { uri: "file:///reports/q3%20sales.csv", mimeType: "text/csv", blob: reportCsvBase64 },
      },
    ],
  }));
  server.registerTool(
    "env",
    { description: "Read one environment variable of the server.", inputSchema: { name: z.string() } },
    async ({ name }) => ({ content: [{ type: "text", text: process.env[name] ?? "(unset)" }] }),
  );
  const crash = options.crash;
  if (crash) {
    server.registerTool("crash", { description: "Die in the middle of the call." }, async () => {
      crash();
      await sleep(60_000);
      return { content: [{ type: "text", text: "still alive" }] };
    });
  }
  return server;
}
