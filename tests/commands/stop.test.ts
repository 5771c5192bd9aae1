import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { SlowProvider } from "../fakes/slow-provider.js";
import { processIsolation } from "../../src/tools/shell/process-namespace.js";
import { isRecordedAlive, killRecorded, type RecordedPid, readRecordedPid, recordPid } from "../tools/recorded-pid.js";
import { waitUntil } from "../tools/wait-until.js";
import { createHarness, type Harness, openTestStore } from "../world/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const chat = "console:main:ana:";

function worldTexts(harness: Harness): string[] {
  return harness.channel
    .messages()
    .filter((message) => message.author === "roundtable")
    .map((message) => message.text);
}

async function onlyTurn(harness: Harness) {
  const turns = await harness.store.listTurns({ chatKey: chat });
  expect(turns).toHaveLength(1);
  return turns[0] as NonNullable<(typeof turns)[0]>;
}

/** Runs `sh -c` that starts `sleep 30` in the background (same process group), records its pid, and waits. */
function sleeper() {
  return new ScriptedProvider((request) =>
    request.messages.at(-1)?.role === "tool"
      ? { text: "after the tool" }
      : {
          text: "",
          toolCalls: [
            {
              name: "shell_cmd",
              args: { command: "sh", args: ["-c", `sleep 30 & ${recordPid("$!", "sleep.pid")}; wait`] },
            },
          ],
        },
  );
}

describe("/stop", () => {
  it("cuts a slow model stream: the partial answer stays, ending '(stopped by ana)'; the turn ends stopped; no further model call", async () => {
    const alice = new SlowProvider();
    h = await createHarness({ agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    await h.say("write a long essay");
    await alice.streaming;

    expect(await h.say("/stop")).toEqual({ status: "ignored", reason: "chat command /stop" });
    await h.waitFor(() => alice.endings.length > 0, 3_000);
    expect(alice.endings).toEqual(["aborted"]);
    await h.idle();

    const turn = await onlyTurn(h);
    expect(turn).toMatchObject({ state: "ended", endReason: "stopped", stoppedBy: { id: "ana", name: "ana" } });
    const answers = h.channel.messages().filter((message) => message.author === "alice");
    expect(answers.map((message) => message.text)).toEqual([
      "Here is the first part of a long answer\n\n(stopped by ana)",
    ]);
    expect(worldTexts(h)).toEqual(["Stopped alice (by ana)."]);
    expect(alice.requests).toHaveLength(1);
    expect(h.logs()).toContain("model stream stopped");
  });

  it("kills a running tool's process group: the sleeping process is gone and the call gets 'interrupted'", async () => {
    const workdir = mkdtempSync(path.join(tmpdir(), "rt-stop-"));
    const alice = sleeper();
    h = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice", workdir },
      tools: { approval: { shell_cmd: "never" } },
    });
    await h.say("sleep a while");
    const pidFile = path.join(workdir, "sleep.pid");
    let sleep: RecordedPid | undefined;
    await waitUntil("the tool's sleep is running", () => {
      sleep = readRecordedPid(pidFile);
      return sleep !== undefined && isRecordedAlive(sleep);
    });

    await h.say("/stop");
    await waitUntil("the sleep is gone", () => sleep === undefined || !isRecordedAlive(sleep), 5_000);
    await h.idle();
    const [call] = await h.store.listToolCalls({ chatKey: chat });
    expect((await h.store.getToolResult(call?.id ?? ""))?.content).toBe("interrupted: stopped by ana");
    expect(await onlyTurn(h)).toMatchObject({ state: "ended", endReason: "stopped" });
    expect(alice.requests).toHaveLength(1);
    expect(worldTexts(h)).toEqual(["Stopped alice (by ana)."]);
  });

  it("ends a running tool's whole process tree: a setsid'd sleep and a daemon's double fork are gone too", async () => {
    const workdir = mkdtempSync(path.join(tmpdir(), "rt-stop-"));
    // shell_cmd runs no shell: the command is sh, the script its argument. In a PID namespace
    // (where the host allows one) also a sleep with no marker in a session of its own, reparented.
    const inNamespace = processIsolation().kind === "pid-namespace";
    const files = inNamespace ? ["setsid.pid", "daemon.pid", "cleared.pid"] : ["setsid.pid", "daemon.pid"];
    const script = [
      `setsid sleep 300 & ${recordPid("$!", "setsid.pid")}`,
      `setsid sh -c '(sleep 300 & ${recordPid("$!", "daemon.pid")}) &' &`,
      ...(inNamespace ? [`env -i setsid -f sh -c '${recordPid("$$", "cleared.pid")}; exec sleep 300'`] : []),
      "sleep 300",
    ].join("\n");
    const alice = new ScriptedProvider((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "after the tool" }
        : { text: "", toolCalls: [{ name: "shell_cmd", args: { command: "sh", args: ["-c", script] } }] },
    );
    h = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice", workdir },
      tools: { approval: { shell_cmd: "never" } },
    });
    await h.say("start a daemon");
    const pids: RecordedPid[] = [];
    await waitUntil("the escaped sleeps are running", () => {
      pids.length = 0;
      for (const file of files) {
        const recorded = readRecordedPid(path.join(workdir, file));
        if (!recorded) return false;
        pids.push(recorded);
      }
      return pids.every(isRecordedAlive);
    });
    try {
      await h.say("/stop");
      await waitUntil("the escaped sleeps are gone", () => !pids.some(isRecordedAlive), 5_000);
      await h.idle();
      const [call] = await h.store.listToolCalls({ chatKey: chat });
      expect((await h.store.getToolResult(call?.id ?? ""))?.content).toBe("interrupted: stopped by ana");
    } finally {
      for (const recorded of pids) killRecorded(recorded);
    }
  });

  it("closes a parked turn's approval card as skipped, saying who stopped it", async () => {
    const alice = new ScriptedProvider([{ text: "", toolCalls: [{ name: "shell_cmd", args: { command: "ls" } }] }]);
    h = await createHarness({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await h.say("@alice list files");
    await h.idle();
    expect((await onlyTurn(h)).state).toBe("parked");
    const [card] = h.channel.cards();

    await h.say("/stop");
    await h.idle();
    const [update] = h.channel.updates();
    expect(update?.outcome).toMatchObject({
      approvalId: card?.card.approvalId,
      state: "skipped",
      note: "stopped by ana",
      decidedBy: { id: "ana", name: "ana" },
    });
    expect(await h.store.getApproval(card?.card.approvalId ?? "")).toMatchObject({
      state: "skipped",
      decidedByName: "ana",
    });
    const [call] = await h.store.listToolCalls({ chatKey: chat });
    expect((await h.store.getToolResult(call?.id ?? ""))?.content).toBe("skipped: stopped by ana");
    expect(await onlyTurn(h)).toMatchObject({ state: "ended", endReason: "stopped" });
    // A late press on the old card changes nothing and runs nothing.
    expect((await h.click(card?.card.approvalId ?? "", "once")).text).toMatch(/^Already decided by ana/);
    await h.idle();
    expect(alice.requests).toHaveLength(1);
  });

  it("with nothing running says so; someone who may not decide is refused and the turn goes on", async () => {
    const alice = new ScriptedProvider([{ text: "", toolCalls: [{ name: "shell_cmd", args: { command: "ls" } }] }]);
    h = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { approvers: { telegram: ["boss"] } },
    });
    await h.say("/stop");
    await h.idle();
    expect(worldTexts(h)).toEqual(["Nothing to stop: no agent is working in this chat."]);

    await h.say("@alice list files");
    await h.idle();
    await h.say("/stop", { user: "eve" });
    await h.say("/stop @carol", { user: "boss" });
    await h.idle();
    expect(worldTexts(h).slice(1)).toEqual([
      "eve: Only the person who asked or an approver may stop alice.",
      "boss: There is no agent named carol here; /agents lists them.",
    ]);
    const [turn] = await h.store.listTurns({ chatKey: "telegram::chat-1:" });
    expect(turn?.state).toBe("parked");

    await h.say("/stop @alice", { user: "boss" });
    await h.idle();
    expect(worldTexts(h).at(-1)).toBe("Stopped alice (by boss).");
    expect((await h.store.getTurn(turn?.id ?? ""))?.stoppedBy).toEqual({ id: "boss", name: "boss" });
  });

  it("a stop stored by another process reaches the running stream (by its poll) and that process ends the turn", async () => {
    const alice = new SlowProvider();
    h = await createHarness({ agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    await h.say("write a long essay");
    await alice.streaming;
    const turn = await onlyTurn(h);

    const other = await openTestStore(h.databaseUrl);
    try {
      expect(await other.store.markTurnStopped(turn.id, { id: "ops", name: "Ops" })).toBeDefined();
    } finally {
      await other.close();
    }
    await h.waitFor(() => alice.endings.length > 0, 5_000);
    await h.idle();
    expect(alice.endings).toEqual(["aborted"]);
    expect(await h.store.getTurn(turn.id)).toMatchObject({ state: "ended", endReason: "stopped" });
    expect(h.channel.messages().at(-1)?.text).toBe("Here is the first part of a long answer\n\n(stopped by Ops)");
  });

  it("a stop marker a crash left on an unended turn is honoured by the next step: the approved tool never runs", async () => {
    const workdir = mkdtempSync(path.join(tmpdir(), "rt-stop-"));
    const alice = new ScriptedProvider([
      { text: "", toolCalls: [{ name: "shell_cmd", args: { command: "touch", args: ["ran"] } }] },
    ]);
    h = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { workdir },
    });
    await h.say("@alice touch it");
    await h.idle();
    const turn = await onlyTurn(h);
    // The stop was stored, then the process died before it ended the turn.
    await h.store.markTurnStopped(turn.id, { id: "ana", name: "ana" });
    const [card] = h.channel.cards();
    await h.click(card?.card.approvalId ?? "", "once");
    await h.idle();
    expect(await h.store.getTurn(turn.id)).toMatchObject({ state: "ended", endReason: "stopped" });
    const [call] = await h.store.listToolCalls({ chatKey: chat });
    expect((await h.store.getToolResult(call?.id ?? ""))?.kind).toBe("skipped");
    expect(() => readFileSync(path.join(workdir, "ran"))).toThrow();
    expect(alice.requests).toHaveLength(1);
  });
});
