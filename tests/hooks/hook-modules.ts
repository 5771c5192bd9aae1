import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** Write a policy module into a fresh directory; its absolute path. */
export function writeHookModule(source: string, name = "policy.mjs"): string {
  const directory = mkdtempSync(path.join(tmpdir(), "rt-hooks-"));
  const file = path.join(directory, name);
  writeFileSync(file, source);
  return file;
}

/** A model that runs `echo hello` once, then answers with what the tool said. */
export const echoStep = { name: "shell_cmd", args: { command: "echo", args: ["hello"] } };
