import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";
import type { OutboundRecord } from "../../src/world/records.js";
import { chatKey } from "../../src/world/chat-ref.js";

let harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
});

/**
 * The database goes away between a post and its record (docs/reliability.md): the post is on
 * the platform, so its record is tried until it is stored; the step is not failed, whose retry
 * would post it again on a platform that cannot be asked for it (the recording channel, like
 * Telegram, has no `findPosted`).
 */
describe("a post whose record fails while the database is away", () => {
  /** Make `recordOutbound` fail `times` times for records of `refKind`, as a cut connection does. */
  function failRecords(h: Harness, refKind: OutboundRecord["refKind"], times: number): { failed: number } {
    const record = h.store.recordOutbound.bind(h.store);
    const state = { failed: 0 };
    h.store.recordOutbound = async (...records) => {
      if (state.failed < times && records.some((each) => each.refKind === refKind)) {
        state.failed += 1;
        throw new Error("Connection terminated unexpectedly");
      }
      await record(...records);
    };
    return state;
  }

  it("an answer is recorded once the database is back, and shown once", async () => {
    const provider = new ScriptedProvider([{ text: "hello" }, { text: "second" }]);
    const h = await createHarness({ agents: [{ name: "alice", provider }], world: { defaultAgent: "alice" } });
    harnesses.push(h);
    const failures = failRecords(h, "message", 3);
    await h.say("hi");
    await h.waitFor(async () => h.channel.messages().length > 0 && failures.failed === 3);
    await h.idle();
    await h.say("again");
    await h.idle();
    expect(h.channel.messages().map((message) => message.text)).toEqual(["hello", "second"]);
    const [answer] = (await h.store.listMessages(chatKey(h.chat()))).filter(
      (message) => message.author.kind === "agent",
    );
    expect(await h.store.getOutbound("message", answer?.id ?? "")).toMatchObject({
      platformMessageIds: [h.channel.messages()[0]?.id],
    });
    expect(h.logs()).toContain("a post's record is stored after the database came back");
  }, 30_000);

  it("an approval card is recorded once the database is back, and posted once", async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hi"] } }] },
    ]);
    const h = await createHarness({
      agents: [{ name: "alice", provider, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice" },
      platform: "telegram",
    });
    harnesses.push(h);
    const failures = failRecords(h, "approval", 2);
    await h.say("go");
    await h.waitFor(
      async () => failures.failed === 2 && (await h.store.listApprovals({ states: ["pending"] })).length > 0,
    );
    await h.idle();
    const [approval] = await h.store.listApprovals({ states: ["pending"] });
    expect(h.channel.posted.filter((post) => post.kind === "card")).toHaveLength(1);
    expect(await h.store.getOutbound("approval", approval?.id ?? "")).toBeDefined();
  }, 30_000);
});
