import { afterEach, describe, expect, it } from "vitest";
import { SlackAdapter } from "../../channels/slack/adapter.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";
import { FakeSlack } from "../fakes/slack-api.js";
import type { HeldResponse } from "../fakes/held-responses.js";
import type { ModelProvider } from "../../src/providers/model-provider.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { SlowProvider } from "../fakes/slow-provider.js";
import { capturingLogger, RecordingSink } from "../telegram/helpers.js";
import { temporaryDatabaseUrl } from "../world/harness.js";
import {
  ana,
  botToken,
  channel,
  signingSecret,
  teamId,
  type WorldSlack,
  worldOnSlack,
  openStream,
} from "./world-slack.js";

let first: WorldSlack | undefined;
let second: WorldSlack | undefined;
let held: HeldResponse | undefined;
afterEach(async () => {
  // The first service goes last: its held call is answered only once the second one is gone.
  await second?.close();
  held?.release();
  await first?.close();
  first = second = held = undefined;
});

const answer = "Here is the plan: first we build, then we ship, and then we celebrate with cake.";
const shell = { name: "shell_cmd", args: { command: "echo", args: ["hi"] } };

/**
 * A service whose `chat.postMessage` the fake Slack carries out but does not answer (as if the
 * service died right then), and a second service on the same database that takes the step back
 * and finishes it. Returns where the answer's thread is (undefined: answers in the channel).
 */
async function crashWhilePosting(options: {
  replyIn: "thread" | "channel";
  model: (service: 1 | 2) => ModelProvider;
  tools?: boolean;
  /** `native`: Slack's own streams (the held call is then `chat.startStream`). */
  stream?: "native";
}): Promise<{ threadTs: string | undefined; later: WorldSlack }> {
  const databaseUrl = temporaryDatabaseUrl();
  const service = (provider: ModelProvider, reuseFake?: FakeSlack) =>
    worldOnSlack({
      mode: "http",
      databaseUrl,
      keepDatabase: true,
      agents: [{ name: "alice", provider, ...(options.tools ? { tools: ["shell_cmd"] } : {}) }],
      world: { defaultAgent: "alice" },
      adapter: { replyIn: options.replyIn, ...(options.stream ? { stream: options.stream } : {}) },
      ...(reuseFake ? { reuseFake } : {}),
    });
  first = await service(options.model(1));
  held = first.fake.holdNext(options.stream === "native" ? "chat.startStream" : "chat.postMessage");
  const { message } = await first.fake.userMessage({ channel, user: ana, text: "what is the plan?" });
  await held.reached;
  // Slack has the post; the first service never learns its ts. A second one starts on the same
  // database, takes the step back (the embedded queue takes back every running job at start)
  // and finishes it.
  second = await service(options.model(2), first.fake);
  const later = second;
  await later.world.waitFor(
    async () => (await later.world.store.listTurns({ states: ["ended", "parked"] })).length > 0,
  );
  await later.settle();
  return { threadTs: options.replyIn === "thread" ? message.ts : undefined, later };
}

describe("Slack: a post the platform took before the service died is not posted again", () => {
  it("a streamed answer in a thread: the next service finds it by its metadata and finishes it in place", async () => {
    const { threadTs, later } = await crashWhilePosting({
      replyIn: "thread",
      model: () => new ScriptedProvider([{ text: answer }]),
    });
    const posts = later.fake.botPosts(channel, threadTs).filter((post) => post.ts !== threadTs);
    expect(posts.map((post) => post.text)).toEqual([answer]);
    expect(posts[0]?.metadata).toEqual({ event_type: "roundtable_post", event_payload: { key: expect.any(String) } });
    expect(later.fake.callsTo("conversations.replies").some((call) => call.params.include_all_metadata)).toBe(true);
  }, 30_000);

  it("a streamed answer in the channel: found through conversations.history", async () => {
    const { later } = await crashWhilePosting({
      replyIn: "channel",
      model: () => new ScriptedProvider([{ text: answer }]),
    });
    const posts = later.fake.botPosts(channel);
    expect(posts.map((post) => post.text)).toEqual([answer]);
    expect(later.fake.callsTo("conversations.history").length).toBeGreaterThan(0);
  }, 30_000);

  it("a stream's first message, the service dying while the model still writes: the turn step run again finds it", async () => {
    const whole = "Here is the first part of a long answer and the rest.";
    const { threadTs, later } = await crashWhilePosting({
      replyIn: "thread",
      model: (service) => (service === 1 ? new SlowProvider() : new ScriptedProvider([{ text: whole }])),
    });
    const posts = later.fake.botPosts(channel, threadTs).filter((post) => post.ts !== threadTs);
    expect(posts.map((post) => post.text)).toEqual([whole]);
  }, 30_000);

  it("a native stream (chat.startStream takes no metadata): the half-written one is removed and the answer shown once", async () => {
    const { threadTs, later } = await crashWhilePosting({
      replyIn: "thread",
      stream: "native",
      model: () => new ScriptedProvider([{ text: answer }]),
    });
    const posts = later.fake.botPosts(channel, threadTs).filter((post) => post.ts !== threadTs);
    expect(posts.map((post) => post.text)).toEqual([answer]);
    expect(later.lines.some((line) => line.msg === "removing the native stream an earlier run left")).toBe(true);
  }, 30_000);

  it("a native stream cut off while the model still writes: the turn step run again streams it once", async () => {
    const whole = "Here is the first part of a long answer and the rest.";
    const { threadTs, later } = await crashWhilePosting({
      replyIn: "thread",
      stream: "native",
      model: (service) => (service === 1 ? new SlowProvider() : new ScriptedProvider([{ text: whole }])),
    });
    const posts = later.fake.botPosts(channel, threadTs).filter((post) => post.ts !== threadTs);
    expect(posts.map((post) => post.text)).toEqual([`**alice:** ${whole}`]);
    expect(posts[0]?.metadata?.event_type).toBe("roundtable_post");
  }, 30_000);

  it("an approval card (posted by the deliver step): the step taken back finds the card already there", async () => {
    const { threadTs, later } = await crashWhilePosting({
      replyIn: "thread",
      model: () => new ScriptedProvider([{ toolCalls: [shell] }]),
      tools: true,
    });
    const cards = later.cards(threadTs ?? "");
    expect(cards).toHaveLength(1);
    const [pending] = await later.world.store.listApprovals({ states: ["pending"] });
    const recorded = await later.world.store.getOutbound("approval", pending?.id ?? "");
    expect(recorded?.platformMessageIds).toEqual([cards[0]?.ts]);
  }, 30_000);
});

describe("Slack: looking for an earlier run's post", () => {
  let fake: FakeSlack | undefined;
  let adapter: SlackAdapter | undefined;
  afterEach(async () => {
    await adapter?.stop();
    await fake?.close();
    adapter = fake = undefined;
  });
  const bob = { kind: "agent" as const, id: "bob", name: "bob" };
  const observer = (mayExist: boolean) => ({
    posted: async () => {},
    postKey: { id: "turn-1#1", mayExist, since: new Date() },
  });
  async function start(options: { stream?: "native" } = {}) {
    fake = await FakeSlack.start({ botToken, signingSecret, teamId });
    const { logger, lines } = capturingLogger();
    adapter = new SlackAdapter({ botToken, signingSecret, apiUrl: fake.apiUrl, logger, ...options });
    await adapter.start(new RecordingSink());
    return { fake, adapter, lines, chat: { platform: "slack" as const, workspace: teamId, channel } };
  }

  it("every post carries its key as metadata; a first attempt makes no look-up", async () => {
    const { fake, adapter, chat } = await start();
    await writerFor(adapter).postMessage(chat, { author: bob, text: "One call." }, observer(false));
    const [post] = fake.callsTo("chat.postMessage");
    expect(post?.params.metadata).toEqual({ event_type: "roundtable_post", event_payload: { key: "turn-1#1:0" } });
    expect(fake.callsTo("conversations.history")).toHaveLength(0);
  });

  it("in a long thread the look-up reads the replies page by page to reach the newest", async () => {
    const { fake, adapter, chat } = await start();
    const root = fake.messages.add({ channel, text: "a busy thread", user: ana });
    const thread = { ...chat, thread: root.ts };
    for (let index = 0; index < 60; index += 1) {
      const key = { posted: async () => {}, postKey: { id: `m${index}`, mayExist: false, since: new Date() } };
      await writerFor(adapter).postMessage(thread, { author: bob, text: `reply ${index}` }, key);
    }
    const again = { posted: async () => {}, postKey: { id: "m59", mayExist: true, since: new Date() } };
    const sent = await writerFor(adapter).postMessage(thread, { author: bob, text: "reply 59" }, again);
    expect(sent.ids).toEqual([fake.botPosts(channel, root.ts).at(-1)?.ts]);
    expect(fake.botPosts(channel, root.ts)).toHaveLength(60);
    expect(fake.callsTo("conversations.replies").length).toBeGreaterThan(1);
  });

  it("a native stream's clean-up never removes a keyless message of the agent that is stored as another post's", async () => {
    const { fake, adapter, chat } = await start({ stream: "native" });
    const root = fake.messages.add({ channel, text: "a thread", user: ana });
    const thread = { ...chat, thread: root.ts };
    // The agent's previous answer, streamed natively without a key (as before keys existed).
    const stream = await openStream(adapter, thread, bob);
    stream.update("Earlier answer.");
    const previous = await stream.finish("Earlier answer.");
    const stored = new Set(previous.ids);
    const key = { id: "turn-2#1", mayExist: true, since: new Date(Date.now() - 60_000) };
    const isStored = async (ts: string) => stored.has(ts);
    await writerFor(adapter).postMessage(
      thread,
      { author: bob, text: "Next answer." },
      { posted: async () => {}, postKey: { ...key, isStored } },
    );
    const shown = fake.botPosts(channel, root.ts).map((post) => post.text);
    expect(shown.some((text) => text.includes("Earlier answer."))).toBe(true);
    expect(fake.callsTo("chat.delete")).toHaveLength(0);
  });

  it("a look-up Slack refuses (missing scope) posts anyway, with a warn log line", async () => {
    const { fake, adapter, chat, lines } = await start();
    await writerFor(adapter).postMessage(chat, { author: bob, text: "Posted once." }, observer(false));
    fake.failNext("conversations.history", { status: 200, error: "missing_scope" });
    await writerFor(adapter).postMessage(chat, { author: bob, text: "Posted once." }, observer(true));
    expect(fake.botPosts(channel).map((post) => post.text)).toEqual(["Posted once.", "Posted once."]);
    expect(
      lines.some((line) => line.level === 40 && String(line.msg).includes("could not look for an earlier run's post")),
    ).toBe(true);
  });

  it("a look-up the fake does not know (unknown_method) posts anyway, with a warn log line", async () => {
    const { fake, adapter, chat, lines } = await start();
    fake.failNext("conversations.history", { status: 200, error: "unknown_method" });
    const sent = await writerFor(adapter).postMessage(chat, { author: bob, text: "Hello." }, observer(true));
    expect(sent.ids).toHaveLength(1);
    expect(lines.some((line) => line.level === 40)).toBe(true);
  });
});
