import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runRoundtable } from "./run-roundtable.js";

let directory: string | undefined;
afterEach(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

describe("roundtable chat keeps the terminal for the conversation", () => {
  it("with no provider key (a newcomer's first try): chat lines, one readable error line, the log in ./data", async () => {
    directory = mkdtempSync(path.join(tmpdir(), "rt-chat-logs-"));
    const run = await runRoundtable(["chat", "--as", "ana"], { cwd: directory, input: "hello\n" });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      "ana: hello\nroundtable: The model provider (openai) has no API key configured; an admin needs to set OPENAI_API_KEY.\n",
    );
    // No JSON log line and no stack trace reach the terminal.
    expect(run.stderr).not.toMatch(/^\{/m);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.stderr).toContain(
      "roundtable: error: provider call failed: openai: no API key (set apiKey in providers.openai or OPENAI_API_KEY) (details in data/roundtable-chat.log)\n",
    );
    const logFile = path.join(directory, "data", "roundtable-chat.log");
    expect(existsSync(logFile)).toBe(true);
    const entries = readFileSync(logFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { msg: string; level: number; code?: string; err?: { stack?: string } });
    // A missing key is an expected condition: one line with its code and cause, no stack, no warning beside it.
    const failures = entries.filter((entry) => entry.msg === "provider call failed");
    expect(failures).toHaveLength(1);
    expect(failures[0]?.code).toBe("provider.auth");
    expect(failures[0]?.err).toBeUndefined();
    expect(entries.filter((entry) => entry.level >= 40)).toHaveLength(1);
  });
});
