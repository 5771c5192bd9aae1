import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;

/**
 * Runs a TypeScript child (a path from the repository's root) in a fresh Node process to its
 * end; its stdout lines parsed as JSON. For tests of what a fresh process loads.
 */
export function runJsonChild(child: string, args: string[]): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ["--import", loader, path.join(root, child), ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    process_.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    process_.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    process_.on("error", reject);
    process_.on("exit", (code) => {
      if (code !== 0) reject(new Error(`the child exited with ${code}: ${stderr}`));
      else
        resolve(
          stdout
            .trim()
            .split("\n")
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        );
    });
  });
}
