// A small notes MCP server over stdio, the one the README's example config starts
// (`notes: { command: node, args: [./mcp/notes.js], env: { NOTES_DIR: ./data/notes } }`).
// Tools: `add` (append a note), `list` (every note, numbered), `clear` (remove them all).
// Notes are kept in `$NOTES_DIR/notes.json` (default ./data/notes, relative to where it runs).
// Plain JavaScript, run by plain `node` from the clone; nothing but MCP may write to stdout.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const directory = path.resolve(process.env.NOTES_DIR || "./data/notes");
const file = path.join(directory, "notes.json");

function readNotes() {
  try {
    const notes = JSON.parse(readFileSync(file, "utf8"));
    return Array.isArray(notes) ? notes.filter((note) => typeof note === "string") : [];
  } catch {
    return [];
  }
}

function writeNotes(notes) {
  mkdirSync(directory, { recursive: true });
  // Written beside, then renamed: a crash never leaves half a file.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(notes, null, 2));
  renameSync(temporary, file);
}

const text = (value) => ({ content: [{ type: "text", text: value }] });
const server = new McpServer({ name: "notes", version: "1.0.0" });
server.registerTool(
  "add",
  { description: "Add a note (one short text).", inputSchema: { text: z.string().min(1).max(10_000) } },
  async ({ text: note }) => {
    const notes = [...readNotes(), note];
    writeNotes(notes);
    return text(`added note ${notes.length}`);
  },
);
server.registerTool("list", { description: "List every note, numbered." }, async () => {
  const notes = readNotes();
  return text(notes.length === 0 ? "no notes" : notes.map((note, index) => `${index + 1}. ${note}`).join("\n"));
});
server.registerTool("clear", { description: "Remove every note." }, async () => {
  const count = readNotes().length;
  writeNotes([]);
  return text(`removed ${count} note${count === 1 ? "" : "s"}`);
});

await server.connect(new StdioServerTransport());
process.stderr.write(`notes server: ready (${file})\n`);
