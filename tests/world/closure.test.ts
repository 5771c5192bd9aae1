import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../src/providers/model-provider.js";
import { ScriptedProvider, type ScriptedStep } from "../fakes/scripted-provider.js";
import { createHarness, type Harness, temporaryDatabaseUrl } from "./harness.js";

/** A small deterministic random generator (mulberry32), so a failing seed can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every assistant tool call in a request is followed by exactly its results, before anything else. */
function assertClosedView(request: ModelRequest): void {
  const messages = request.messages;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (message?.role !== "assistant" || message.toolCalls.length === 0) continue;
    const expected = message.toolCalls.map((call) => call.id).sort();
    const following = messages.slice(index + 1, index + 1 + expected.length);
    const got = following.map((item) => (item.role === "tool" ? item.toolCallId : `not-a-result:${item.role}`)).sort();
    expect(got).toEqual(expected);
  }
}

function scriptFor(next: () => number): (request: ModelRequest) => ScriptedStep {
  return (request) => {
    assertClosedView(request);
    const roll = next();
    if (roll < 0.3) return { text: "done" };
    const count = 1 + Math.floor(next() * 3);
    return {
      text: next() < 0.5 ? "working" : "",
      toolCalls: Array.from({ length: count }, (_, index) => {
        const kind = next();
        if (kind < 0.1) return { name: "shell_cmd", args: null, rawArguments: "{broken" };
        if (kind < 0.2) return { name: "no_such_tool", args: {} };
        return { name: "shell_cmd", args: { command: "echo", args: [`w${Math.floor(next() * 4)}-${index}`] } };
      }),
    };
  };
}

describe("closure invariant under random decisions, expiries and restarts", () => {
  it("every tool call ends with exactly one result, and no model call sees an open call", async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const next = random(seed);
      const databaseUrl = temporaryDatabaseUrl();
      const options = (provider: ScriptedProvider) => ({
        databaseUrl,
        keepDatabase: true,
        platform: "telegram" as const,
        agents: [{ name: "alice", provider, tools: ["shell_cmd"], limits: { maxSteps: 4, maxRepeats: 2 } }],
        world: { approvalTimeout: 1 },
      });
      let harness: Harness = await createHarness(options(new ScriptedProvider(scriptFor(next))));
      try {
        for (let message = 0; message < 3; message++) {
          await harness.say(`@alice task ${message}`, { user: "ana" });
          await harness.idle();
          for (let round = 0; round < 12; round++) {
            const pending = await harness.store.listApprovals({ states: ["pending"] });
            if (pending.length === 0) break;
            const target = pending[Math.floor(next() * pending.length)];
            const action = next();
            if (action < 0.4) await harness.click(target?.id ?? "", "once", { user: "ana" });
            else if (action < 0.6) await harness.click(target?.id ?? "", "deny", { user: "ana" });
            else if (action < 0.7) await harness.click(target?.id ?? "", "session", { user: "ana" });
            else if (action < 0.85) {
              await harness.close();
              harness = await createHarness(options(new ScriptedProvider(scriptFor(next))));
            } else {
              const id = target?.id ?? "";
              await harness.waitFor(async () => (await harness.store.getApproval(id))?.state !== "pending");
            }
            await harness.idle();
          }
        }
        // Let whatever is still pending expire, then check the stored history.
        await harness.waitFor(async () => (await harness.store.listApprovals({ states: ["pending"] })).length === 0);
        await harness.idle();
        const calls = await harness.store.listToolCalls({});
        const results = await harness.store.listToolResults(calls.map((call) => call.id));
        const perCall = new Map<string, number>();
        for (const result of results) perCall.set(result.toolCallId, (perCall.get(result.toolCallId) ?? 0) + 1);
        for (const call of calls) expect(perCall.get(call.id), `seed ${seed} call ${call.id}`).toBe(1);
        const turns = await harness.store.listTurns({});
        for (const turn of turns) expect(turn.state, `seed ${seed} turn ${turn.id}`).toBe("ended");
      } finally {
        await harness.close();
      }
    }
    // Slow by design: every "let it expire" branch waits out the real one-second approval timeout
    // (the expiry runs on the job queue, which keeps real time), across six seeds and their restarts.
  }, 120_000);
});
