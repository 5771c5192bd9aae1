/**
 * Error codes are exactly the ones thrown (docs/architecture.md, "Folders"): every code in
 * `ErrorCode` is written somewhere in the service's code (a `new …Error("code", …)`, a
 * provider's error map), or is the fixed code of an error class that something constructs.
 * A code nothing throws is dead weight that tests and logs would key on in vain.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const errorsFile = path.join(root, "src", "errors", "roundtable-error.ts");

/** The service's own source files (not tests), except the file that declares the codes. */
async function sourceFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const folder of ["src", "channels"]) {
    const entries = await readdir(path.join(root, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      const file = path.join(entry.parentPath, entry.name);
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) continue;
      if (file.includes(`${path.sep}generated${path.sep}`) || file === errorsFile) continue;
      files.push(file);
    }
  }
  return files;
}

function declaredCodes(errorsText: string): string[] {
  const union = /export type ErrorCode =([^;]+);/.exec(errorsText)?.[1] ?? "";
  return [...union.matchAll(/"([^"]+)"/g)].map((match) => match[1] ?? "");
}

/** Classes in the errors file that pass a fixed code to `super`, with that code. */
function fixedCodes(errorsText: string): Map<string, string> {
  const classes = new Map<string, string>();
  for (const block of errorsText.split(/(?=\bexport class )/)) {
    const match = /^export class (\w+) extends RoundtableError[\s\S]*?super\("([^"]+)"/.exec(block);
    if (match) classes.set(match[1] ?? "", match[2] ?? "");
  }
  return classes;
}

describe("error codes", () => {
  it("every declared code is thrown somewhere", async () => {
    const errorsText = await readFile(errorsFile, "utf8");
    const sources = await Promise.all((await sourceFiles()).map((file) => readFile(file, "utf8")));
    const code = sources.join("\n");
    const thrown = new Set<string>();
    for (const name of declaredCodes(errorsText)) if (code.includes(`"${name}"`)) thrown.add(name);
    for (const [errorClass, name] of fixedCodes(errorsText)) {
      if (new RegExp(`new ${errorClass}\\(`).test(code)) thrown.add(name);
    }
    const declared = declaredCodes(errorsText);
    expect(declared.length).toBeGreaterThan(0);
    expect(declared.filter((name) => !thrown.has(name))).toEqual([]);
  });
});
