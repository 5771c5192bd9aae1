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
const child = path.join(root, "tests/world/approval-timers-child.ts");
const env = { ...process.env, LOG_LEVEL: "warn" };

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

describe("approval reminders and escalation across SIGKILL (real processes)", () => {
  it("a card parked, the process killed; the next process reminds once and is killed; the third escalates once, the escalated person decides; nothing is shown twice", async () => {
    const url = `file:${path.join(mkdtempSync(path.join(tmpdir(), "rt-timers-")), "roundtable.db")}`;
    const first = await runChild(["park", url], /^PARKED /);
    expect(first.code, first.stderr).toBeNull(); // killed
    const approvalId = first.lines.find((line) => line.startsWith("PARKED "))?.slice("PARKED ".length) ?? "";
    expect(approvalId).not.toBe("");

    const second = await runChild(["until-reminded", url], /^REMINDED /);
    expect(second.code, second.stderr).toBeNull(); // killed after the reminder was shown
    const reminded: string[] = JSON.parse(second.lines.find((line) => line.startsWith("REMINDED "))?.slice(9) ?? "[]");
    expect(reminded[0]).toMatch(/^⏰ Reminder: alice's call of shell_cmd, id \w+, still waits for a decision\. @222$/);

    const third = await runChild(["until-escalated", url]);
    expect(third.code, third.stderr).toBe(0);
    expect(third.lines).toContain("CLICK decided");
    // Across both processes each notice was shown once: the reminder by the one killed, the
    // escalation by whichever was running at its time.
    const shown: string[] = JSON.parse(third.lines.find((line) => line.startsWith("POSTED "))?.slice(7) ?? "[]");
    const all = [...reminded, ...shown];
    expect(all.filter((text) => text.startsWith("⏰"))).toHaveLength(1);
    expect(all.filter((text) => text.startsWith("⏫"))).toEqual([
      expect.stringMatching(/^⏫ Escalated: alice's call of shell_cmd, .* @333$/),
    ]);

    // Stored once each: one notice message and one system event per timer, whoever ran it.
    const { store, close } = await openTestStore(url);
    const events = await store.listEvents("telegram::chat-1:");
    const notices = events.filter((event) => event.type === "system").map((event) => event.message.id);
    expect(notices.filter((id) => id === `remind:${approvalId}`)).toHaveLength(1);
    expect(notices.filter((id) => id === `escalate:${approvalId}`)).toHaveLength(1);
    expect((await store.getApproval(approvalId))?.state).toBe("approved");
    await close();
  }, 120_000);
});
