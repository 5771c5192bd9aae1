/**
 * Slack refusing under load (docs/reliability.md, "A platform refuses"): a 429 waited out for
 * its chat only while the other chats flow; a 5xx or a cut connection after Slack took the post
 * never shows it twice (the post is looked up by its metadata before it is sent again); an
 * edit refused with a 5xx is sent again. Several chats at once, every answer judged: none lost,
 * none doubled, each chat's text exact.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelClock } from "../../src/world/channel-adapter.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { SlackStoredMessage } from "../fakes/slack-api.js";
import { ana, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const channels = ["C0ONE", "C0TWO", "C0THREE"] as const;

/** alice answers every question by naming it. */
function answering(): ScriptedProvider {
  return new ScriptedProvider((request) => ({
    text: `Answer to ${ScriptedProvider.lastText(request).replace(/^Ana: /, "")}`,
  }));
}

/** Each chat (a thread in its own channel) gets one question at once; resolves when all are taken. */
async function askEach(world: WorldSlack, question: (channel: string) => string): Promise<Map<string, string>> {
  const roots = new Map<string, string>();
  await Promise.all(
    channels.map(async (channel) => {
      const { message, delivery } = await world.fake.userMessage({ channel, user: ana, text: question(channel) });
      if (delivery.status !== 200) throw new Error(`event refused: ${delivery.status}`);
      roots.set(channel, message.ts);
    }),
  );
  return roots;
}

function repliesOf(world: WorldSlack, channel: string, root: string | undefined): SlackStoredMessage[] {
  return world.fake.botPosts(channel, root).filter((message) => message.ts !== root);
}

/**
 * A clock whose waits of `heldMs` last until {@link release}; every other wait (edit intervals)
 * is over at once, as the harness's instant clock.
 */
class HoldingClock implements ChannelClock {
  readonly sleeps: number[] = [];
  private readonly held: (() => void)[] = [];
  constructor(private readonly heldMs: number) {}
  now(): number {
    return Date.now();
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    if (ms === this.heldMs) await new Promise<void>((resolve) => this.held.push(resolve));
  }
  release(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let round = 0; round < 400; round += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function expectEachAnsweredOnce(world: WorldSlack, roots: Map<string, string>): void {
  for (const channel of channels) {
    expect(repliesOf(world, channel, roots.get(channel)).map((reply) => reply.text)).toEqual([
      `Answer to ${channel} question`,
    ]);
  }
}

describe("Slack refusing, several chats at once", () => {
  it("a 429 for one chat is waited out for that chat only: the other chats' answers are posted meanwhile", async () => {
    const clock = new HoldingClock(30_000);
    t = await worldOnSlack({
      mode: "socket",
      agents: [{ name: "alice", provider: answering() }],
      world: { defaultAgent: "alice" },
      adapter: { clock },
    });
    t.fake.failNext("chat.postMessage", { status: 429, retryAfterSeconds: 30, channel: "C0ONE" });
    const world = t;
    const roots = new Map<string, string>();
    const ask = async (channel: string) =>
      roots.set(
        channel,
        (await world.fake.userMessage({ channel, user: ana, text: `${channel} question` })).message.ts,
      );
    await ask("C0ONE");
    await until("chat one's 429", () => world.fake.callsTo("chat.postMessage").some((call) => call.status === 429));
    // Asked while chat one waits out its 30 s: answered meanwhile.
    await Promise.all([ask("C0TWO"), ask("C0THREE")]);
    await until("the other chats' answers", () =>
      ["C0TWO", "C0THREE"].every(
        (channel) => repliesOf(world, channel, roots.get(channel))[0]?.text === `Answer to ${channel} question`,
      ),
    );
    expect(repliesOf(t, "C0ONE", roots.get("C0ONE"))).toEqual([]);
    await until("chat one's wait", () => clock.sleeps.includes(30_000));
    clock.release();
    await until("chat one's answer", () => repliesOf(world, "C0ONE", roots.get("C0ONE")).length === 1);
    await t.settle();
    expectEachAnsweredOnce(t, roots);
    const chatOne = t.fake.callsTo("chat.postMessage").filter((call) => call.params.channel === "C0ONE");
    expect(chatOne.map((call) => call.status)).toEqual([429, 200]);
  });

  it.each([
    ["answered 500", { status: 500 }],
    ["answered 502", { status: 502, error: "bad_gateway" }],
    ["cut (connection reset)", { reset: true }],
  ])(
    "a post Slack took but whose answer was lost (%s) is found by its metadata, never posted twice",
    async (_name, fault) => {
      t = await worldOnSlack({
        mode: "socket",
        agents: [{ name: "alice", provider: answering() }],
        world: { defaultAgent: "alice" },
      });
      t.fake.failNext("chat.postMessage", { ...fault, channel: "C0ONE", afterDoing: true });
      const roots = await askEach(t, (channel) => `${channel} question`);
      await t.settle();
      expectEachAnsweredOnce(t, roots);
      // Slack stored it once: the look-up found it and nothing was sent again.
      const chatOne = t.fake.callsTo("chat.postMessage").filter((call) => call.params.channel === "C0ONE");
      expect(chatOne).toHaveLength(1);
    },
  );

  it("a post Slack refused with a 5xx before taking it is sent again after the look-up finds nothing", async () => {
    t = await worldOnSlack({
      mode: "socket",
      agents: [{ name: "alice", provider: answering() }],
      world: { defaultAgent: "alice" },
    });
    t.fake.failNext("chat.postMessage", { status: 503, error: "service_unavailable", channel: "C0TWO" }, 2);
    const roots = await askEach(t, (channel) => `${channel} question`);
    await t.settle();
    expectEachAnsweredOnce(t, roots);
    const chatTwo = t.fake.callsTo("chat.postMessage").filter((call) => call.params.channel === "C0TWO");
    expect(chatTwo.map((call) => call.status)).toEqual([503, 503, 200]);
  });

  it("an edit refused with a 5xx or cut is sent again: the answer ends with its whole text", async () => {
    t = await worldOnSlack({
      mode: "socket",
      agents: [{ name: "alice", provider: answering() }],
      world: { defaultAgent: "alice" },
    });
    t.fake.failNext("chat.update", { status: 502, error: "bad_gateway", channel: "C0THREE" });
    t.fake.failNext("chat.update", { reset: true, channel: "C0THREE", afterDoing: true });
    const roots = await askEach(t, (channel) => `${channel} question`);
    await t.settle();
    expectEachAnsweredOnce(t, roots);
  });

  it("a chat refused a dozen times in a row (503) gets its answer once, late, while the others flow", async () => {
    t = await worldOnSlack({
      mode: "socket",
      agents: [{ name: "alice", provider: answering() }],
      world: { defaultAgent: "alice" },
    });
    t.fake.failNext("chat.postMessage", { status: 503, error: "service_unavailable", channel: "C0ONE" }, 12);
    const roots = await askEach(t, (channel) => `${channel} question`);
    const world = t;
    await until("chat one's answer", () => repliesOf(world, "C0ONE", roots.get("C0ONE")).length > 0);
    await t.settle();
    expectEachAnsweredOnce(t, roots);
    const chatOne = t.fake.callsTo("chat.postMessage").filter((call) => call.params.channel === "C0ONE");
    expect(chatOne.map((call) => call.status)).toEqual([...Array.from({ length: 12 }, () => 503), 200]);
  });
});
