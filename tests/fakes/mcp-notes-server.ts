/**
 * The notes MCP server over stdio, for tests: run it as
 * `node --import <tsx loader> tests/fakes/mcp-notes-server.ts` (see `notesServerCommand`).
 * Notes go to `NOTES_DIR` when set (with `crashes.log`, a line per crash), else memory.
 * Nothing but MCP may write to stdout.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createNotesServer, NotesStore } from "./mcp-notes-tools.js";

const notesDirectory = process.env.NOTES_DIR || undefined;
const server = createNotesServer({
  notes: new NotesStore(notesDirectory),
  crash: () => {
    // Each crash leaves a line, so a test can tell the call was not run a second time.
    if (notesDirectory) {
      mkdirSync(notesDirectory, { recursive: true });
      appendFileSync(path.join(notesDirectory, "crashes.log"), "crash\n");
    }
    process.stderr.write("notes server: crashing on purpose\n");
    process.exit(3);
  },
});
await server.connect(new StdioServerTransport());
process.stderr.write("notes server: ready\n");
