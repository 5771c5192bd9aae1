import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * How to start the stdio notes server without depending on PATH: this Node binary, with the
 * tsx loader given by absolute URL, running the server file by absolute path.
 */
export function notesServerCommand(): { command: string; args: string[] } {
  const loader = pathToFileURL(path.join(repositoryRoot, "node_modules", "tsx", "dist", "loader.mjs")).href;
  return {
    command: process.execPath,
    args: ["--import", loader, path.join(repositoryRoot, "tests", "fakes", "mcp-notes-server.ts")],
  };
}
