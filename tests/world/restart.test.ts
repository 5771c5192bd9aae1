import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openTestStore } from "./harness.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// Node itself with tsx's loader (not the tsx CLI, which runs a second process a SIGKILL would not reach).
const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
const child = path.join(root, "tests/world/restart-child.ts");
const env = {
  ...process.env,
  PATH: `${path.join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}`,
  LOG_LEVEL: "warn",
};

/** Start the child; resolve with its stdout lines once `until` matches a line (then SIGKILL), or at exit. */
function runChild(args: string[], until?: RegExp): Promise<{ lines: string[]; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ["--import", loader, child, ...args], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let buffer = "";
    let stderr = "";
    process_.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    process_.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      let index = buffer.indexOf("\n");
      while (index >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        lines.push(line);
        if (until?.test(line)) process_.kill("SIGKILL");
        index = buffer.indexOf("\n");
      }
    });
    process_.on("error", reject);
    process_.on("exit", (code) => resolve({ lines, code, stderr }));
  });
}

function databaseUrl(): string {
  return `file:${path.join(mkdtempSync(path.join(tmpdir(), "rt-restart-")), "roundtable.db")}`;
}

describe("restart safety with real processes", () => {
  it("a process killed in the middle of a turn: on restart the turn is finished, answered once", async () => {
    const url = databaseUrl();
    const first = await runChild(["hang-in-provider", url], /IN_PROVIDER/);
    expect(first.lines).toContain("IN_PROVIDER");
    expect(first.code).toBeNull(); // killed

    const second = await runChild(["resume", url]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.lines).toContain('POSTED ["final answer"]');

    const { store, close } = await openTestStore(url);
    const answers = (await store.listMessages("console:main:ana:")).filter(
      (message) => message.author.kind === "agent",
    );
    expect(answers.map((message) => message.text)).toEqual(["final answer"]);
    await close();
  });

  it("SIGKILL while an approval is pending; a new process; the click arrives; the tool runs; one final answer", async () => {
    const url = databaseUrl();
    const first = await runChild(["park-on-approval", url], /^PARKED /);
    const approvalId = first.lines.find((line) => line.startsWith("PARKED "))?.slice("PARKED ".length) ?? "";
    expect(approvalId).not.toBe("");

    const second = await runChild(["resume", url, "click", approvalId]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.lines).toContain("CLICK decided");
    const posted = JSON.parse(second.lines.find((line) => line.startsWith("POSTED "))?.slice(7) ?? "[]") as string[];
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatch(/^final: .*after-restart/);

    const { store, close } = await openTestStore(url);
    const chatKey = "telegram::chat-1:";
    const answers = (await store.listMessages(chatKey)).filter((message) => message.text.startsWith("final:"));
    expect(answers).toHaveLength(1);
    await close();
  });

  it("a tool running when the process died gets `interrupted` on restart, is not run again, and the turn goes on", async () => {
    const url = databaseUrl();
    const first = await runChild(["kill-in-tool", url], /IN_TOOL/);
    expect(first.lines).toContain("IN_TOOL");

    const second = await runChild(["resume", url]);
    expect(second.code, second.stderr).toBe(0);
    const posted = JSON.parse(second.lines.find((line) => line.startsWith("POSTED "))?.slice(7) ?? "[]") as string[];
    expect(posted).toEqual([
      expect.stringMatching(/^final: interrupted: the service restarted while this tool was running/),
    ]);

    const { store, close } = await openTestStore(url);
    const calls = await store.listToolCalls({});
    const results = await store.listToolResults(calls.map((call) => call.id));
    expect(results.map((result) => result.kind)).toEqual(["interrupted"]);
    await close();
  });

  it("a file the tool left in outbox/ before the process died is posted once on restart, and the model is told", async () => {
    const url = databaseUrl();
    const workdir = mkdtempSync(path.join(tmpdir(), "rt-outbox-"));
    const first = await runChild(["kill-in-tool-outbox", url, workdir], /IN_TOOL/);
    expect(first.lines).toContain("IN_TOOL");

    const second = await runChild(["resume-outbox", url, workdir]);
    expect(second.code, second.stderr).toBe(0);
    const posted = JSON.parse(second.lines.find((line) => line.startsWith("POSTED "))?.slice(7) ?? "[]") as string[];
    expect(posted).toEqual([
      "report.csv from shell_cmd",
      expect.stringMatching(
        /^final: interrupted: the service restarted while this tool was running; it was not run again \[files posted to the chat: report\.csv/,
      ),
    ]);
    // Run once more: nothing new is stored or shown.
    const third = await runChild(["resume-outbox", url, workdir]);
    expect(third.code, third.stderr).toBe(0);
    expect(third.lines.find((line) => line.startsWith("POSTED "))).toBe("POSTED []");
    const { store, close } = await openTestStore(url);
    const messages = await store.listMessages((await store.listToolCalls({}))[0]?.chatKey ?? "");
    expect(messages.filter((message) => message.text === "report.csv from shell_cmd")).toHaveLength(1);
    await close();
  });
});
