import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolsConfigSchema } from "../../src/config/schema.js";
import { connectMcpServers, type McpManager } from "../../src/tools/mcp/mcp-manager.js";
import { repositoryRoot } from "../cli/run-roundtable.js";
import { capturedLogger } from "./captured-logger.js";

let directory: string;
let manager: McpManager | undefined;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-readme-notes-"));
});
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  await rm(directory, { recursive: true, force: true });
});

describe("the notes MCP server the README's example config starts (./mcp/notes.js, #28)", () => {
  it("starts with plain node from the clone, as configured there, and adds, lists and clears notes", async () => {
    const notesDir = path.join(directory, "notes");
    // As in the README: `notes: { command: node, args: [./mcp/notes.js], env: { NOTES_DIR: … } }`, run from the clone.
    const tools = toolsConfigSchema.parse({
      mcpServers: {
        notes: {
          command: process.execPath,
          args: ["./mcp/notes.js"],
          cwd: repositoryRoot,
          env: { NOTES_DIR: notesDir },
        },
      },
    });
    manager = await connectMcpServers(tools, capturedLogger().logger, {
      retry: { initialDelayMs: 60_000 },
      connectTimeoutMs: 20_000,
    });
    expect(manager.statuses()[0]).toMatchObject({ name: "notes", state: "connected", toolCount: 3 });
    const source = manager.sources[0];
    if (!source) throw new Error("no notes source");
    expect(source.list().map((tool) => tool.name)).toEqual(["notes__add", "notes__list", "notes__clear"]);
    const context = { workdir: directory, signal: new AbortController().signal, timeoutMs: 20_000 };
    expect(await source.call("notes__list", {}, context)).toEqual({ kind: "ok", text: "no notes" });
    expect(await source.call("notes__add", { text: "ship on Friday" }, context)).toEqual({
      kind: "ok",
      text: "added note 1",
    });
    await source.call("notes__add", { text: "tell ana" }, context);
    expect(await source.call("notes__list", {}, context)).toEqual({
      kind: "ok",
      text: "1. ship on Friday\n2. tell ana",
    });
    expect(JSON.parse(await readFile(path.join(notesDir, "notes.json"), "utf8"))).toEqual([
      "ship on Friday",
      "tell ana",
    ]);
    expect(await source.call("notes__clear", {}, context)).toEqual({ kind: "ok", text: "removed 2 notes" });
  });
});
