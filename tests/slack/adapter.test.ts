import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SlackAdapter } from "../../channels/slack/adapter.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";
import type { SlackAdapterOptions } from "../../channels/slack/options.js";
import { platformChecks } from "../../src/cli/check/check-platforms.js";
import { runCheck } from "../../src/cli/check/check-row.js";
import { configSchema } from "../../src/config/schema.js";
import { defaultScopes, FakeSlack } from "../fakes/slack-api.js";
import { capturingLogger, InstantClock, logsMatching, ManualClock, RecordingSink } from "../telegram/helpers.js";
import { ana, appToken, botToken, channel, signingSecret, teamId, openStream } from "./world-slack.js";

let fake: FakeSlack | undefined;
let adapter: SlackAdapter | undefined;
afterEach(async () => {
  await adapter?.stop();
  await fake?.close();
  adapter = undefined;
  fake = undefined;
});

/** The adapter alone over Socket Mode, with a recording sink standing in for the world. */
async function socketAdapter(scopes: string[] = defaultScopes, options: Partial<SlackAdapterOptions> = {}) {
  fake = await FakeSlack.start({
    botToken,
    appToken,
    signingSecret,
    teamId,
    scopes,
    users: [{ id: ana, name: "ana", displayName: "Ana" }],
  });
  const { logger, lines } = capturingLogger();
  adapter = new SlackAdapter({
    botToken,
    appToken,
    apiUrl: fake.apiUrl,
    agents: [{ name: "alice", displayName: "Alice" }],
    logger,
    clock: new InstantClock(),
    ...options,
  });
  const sink = new RecordingSink();
  await adapter.start(sink);
  await fake.socket.whenConnected();
  return { fake, adapter, sink, lines };
}

const thread = { platform: "slack" as const, workspace: teamId, channel, thread: "1800000000.000001" };

describe("the Slack adapter", () => {
  it("names each missing scope with what it breaks at start, and posts with a bold name without chat:write.customize", async () => {
    const scopes = defaultScopes.filter((scope) => scope !== "chat:write.customize" && scope !== "files:write");
    const h = await socketAdapter(scopes);
    const warnings = logsMatching(h.lines, /slack app lacks the/).map((line) => line.msg);
    expect(warnings).toEqual([
      expect.stringMatching(
        /chat:write\.customize scope: posting under each agent's name and icon .* does not work; add it under OAuth/,
      ),
      expect.stringMatching(
        /files:write scope: posting the images and files tools give .*; attaching long tool arguments/,
      ),
    ]);
    h.fake.messages.add({ channel, user: ana, text: "root", ts: thread.thread });
    const sent = await writerFor(h.adapter).postMessage(thread, {
      author: { kind: "agent", id: "alice", name: "alice" },
      text: "**Done** & dusted",
    });
    const [post] = h.fake.botPosts(channel, thread.thread).filter((message) => message.ts !== thread.thread);
    expect(post).toMatchObject({ ts: sent.ids[0], text: "*Alice:* *Done* &amp; dusted" });
    expect(post?.username).toBeUndefined();
  });

  it("a post before start (stored work runs before the channels start) still goes under the agent's name", async () => {
    fake = await FakeSlack.start({ botToken, signingSecret, teamId });
    const { logger } = capturingLogger();
    adapter = new SlackAdapter({ botToken, signingSecret, apiUrl: fake.apiUrl, logger, clock: new InstantClock() });
    fake.messages.add({ channel, user: ana, text: "root", ts: thread.thread });
    const sent = await writerFor(adapter).postMessage(thread, {
      author: { kind: "agent", id: "alice", name: "alice" },
      text: "early",
    });
    const [post] = fake.botPosts(channel, thread.thread).filter((message) => message.ts !== thread.thread);
    expect(post).toMatchObject({ ts: sent.ids[0], text: "early", username: "alice" });
  });

  it("roundtable check names the missing scopes, and fails without chat:write", async () => {
    fake = await FakeSlack.start({ botToken, signingSecret, teamId, scopes: ["chat:write", "channels:history"] });
    const rows = async () => {
      const config = configSchema.parse({ channels: { slack: { botToken, signingSecret, apiUrl: fake?.apiUrl } } });
      return Promise.all(platformChecks(config).map((check) => runCheck(check.name, check.run)));
    };
    const [partial] = await rows();
    expect(partial).toMatchObject({ name: "slack", status: "ok" });
    expect(partial?.detail).toMatch(
      /^bot roundtable in workspace Fake Team; missing scopes: .*chat:write\.customize \(posting under each agent's name/,
    );
    expect(partial?.detail).toMatch(/HTTP events at \/slack\/events$/);
    fake.scopes = ["channels:history"];
    const [failed] = await rows();
    expect(failed).toMatchObject({ name: "slack", status: "FAIL" });
    expect(failed?.detail).toContain("chat:write (posting answers and approval cards)");
    fake.scopes = [...defaultScopes];
    const socketRows = async (token: string) => {
      const config = configSchema.parse({ channels: { slack: { botToken, appToken: token, apiUrl: fake?.apiUrl } } });
      return Promise.all(platformChecks(config).map((check) => runCheck(check.name, check.run)));
    };
    const [wrongAppToken] = await socketRows("xapp-wrong");
    expect(wrongAppToken).toMatchObject({ name: "slack", status: "FAIL" });
    expect(wrongAppToken?.detail).toMatch(
      /SLACK_APP_TOKEN refused for Socket Mode \(invalid_auth\): create an app-level token/,
    );
  });

  it("/roundtable <command> goes to the world as a command for the channel and is answered privately", async () => {
    const h = await socketAdapter();
    const ack = await h.fake.socket.send("slash_commands", {
      command: "/roundtable",
      text: "approvals now",
      user_id: ana,
      user_name: "ana",
      channel_id: channel,
      team_id: teamId,
      trigger_id: "trig-9",
    });
    expect(ack ?? {}).toEqual({}); // acked at once, with no text: the answer comes privately
    await h.adapter.idle();
    expect(h.sink.commands).toEqual([
      expect.objectContaining({
        chat: { platform: "slack", workspace: teamId, channel },
        name: "approvals",
        args: ["now"],
        sender: { id: ana, displayName: "Ana", isBot: false, handle: "ana" },
        platformEventId: "trig-9",
      }),
    ]);
    expect(h.fake.ephemerals).toEqual([{ channel, user: ana, text: "/approvals done." }]);
  });

  it("a button it did not write is answered privately as stale and reaches nobody", async () => {
    const h = await socketAdapter();
    h.fake.messages.add({ channel, user: "U0BOT", bot_id: "B0BOT", text: "old card", ts: "1800000000.000009" });
    await h.fake.press({
      user: ana,
      channel,
      messageTs: "1800000000.000009",
      actionId: "roundtable_approval_once",
      value: "forged",
    });
    await h.adapter.idle();
    expect(h.sink.clicks).toHaveLength(0);
    expect(h.fake.ephemerals.map((each) => each.text)).toEqual(["This button is no longer valid."]);
    expect(logsMatching(h.lines, /slack button press refused/)).toHaveLength(1);
  });

  it("stream: native streams into the thread through chat.startStream / appendStream / stopStream, led by the agent's name", async () => {
    const h = await socketAdapter(defaultScopes, { stream: "native" });
    h.fake.messages.add({ channel, user: ana, text: "root", ts: thread.thread });
    const stream = await openStream(h.adapter, thread, { kind: "agent", id: "alice", name: "alice" });
    stream.update("Hello");
    stream.update("Hello, wor");
    const sent = await stream.finish("Hello, world.");
    const message = h.fake.messages.find(channel, sent.ids[0] ?? "");
    expect(message).toMatchObject({ text: "**Alice:** Hello, world.", streaming: false, thread_ts: thread.thread });
    expect(h.fake.callsTo("chat.startStream")).toHaveLength(1);
    expect(h.fake.callsTo("chat.stopStream")).toHaveLength(1);
    expect(h.fake.callsTo("chat.postMessage")).toHaveLength(0);
  });

  it("says which settings are missing for HTTP events", async () => {
    fake = await FakeSlack.start({ botToken, signingSecret, teamId });
    const { logger } = capturingLogger();
    adapter = new SlackAdapter({ botToken, apiUrl: fake.apiUrl, logger });
    await expect(adapter.start(new RecordingSink())).rejects.toThrow(/needs signingSecret .* or appToken/);
  });
  it("a streamed answer changes its message at most once per interval, however fast the model writes", async () => {
    const clock = new ManualClock();
    const h = await socketAdapter(defaultScopes, { clock, updateIntervalMs: 1000 });
    h.fake.messages.add({ channel, user: ana, text: "root", ts: thread.thread });
    const stream = await openStream(h.adapter, thread, { kind: "agent", id: "alice", name: "alice" });
    let text = "";
    const settle = async () => {
      for (let round = 0; round < 5; round += 1) await new Promise((resolve) => setImmediate(resolve));
      await h.fake.quiet();
    };
    const waitUntil = async (condition: () => boolean) => {
      for (let round = 0; round < 400 && !condition(); round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const waitForCalls = async (method: string, count: number) => {
      for (let round = 0; round < 200 && h.fake.callsTo(method).length < count; round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    for (let second = 0; second < 3; second += 1) {
      for (let word = 0; word < 20; word += 1) {
        text += `w${second}-${word} `;
        stream.update(text);
        await settle();
      }
      await waitForCalls(second === 0 ? "chat.postMessage" : "chat.update", second === 0 ? 1 : second);
      // Advance only once the stream is asleep until its next edit, or the sleep would never wake.
      await waitUntil(() => clock.sleeping() > 0);
      clock.advance(1000);
    }
    await waitForCalls("chat.update", 3);
    // 60 model updates over three intervals: one post, then one edit per interval.
    expect(h.fake.callsTo("chat.postMessage")).toHaveLength(1);
    expect(h.fake.callsTo("chat.update").length).toBeGreaterThanOrEqual(1);
    expect(h.fake.callsTo("chat.update").length).toBeLessThanOrEqual(3);
    const finishing = stream.finish(`${text}done`);
    let finished = false;
    void finishing.then(
      () => {
        finished = true;
      },
      () => {
        finished = true;
      },
    );
    // finish() first waits for an edit in flight, then sleeps out the interval: advance the clock
    // only once that sleep has started (finish aborts the stream's own pending sleep synchronously).
    await waitUntil(() => finished || clock.sleeping() > 0);
    if (!finished) clock.advance(1000);
    const sent = await finishing;
    expect(h.fake.messages.find(channel, sent.ids[0] ?? "")?.text).toBe(
      `*Alice:* ${text}done`.replace("*Alice:* ", ""),
    );
  });
  it("over HTTP an event is answered once the world has taken it, so that a crash before then makes Slack deliver it again", async () => {
    fake = await FakeSlack.start({ botToken, signingSecret, teamId, users: [{ id: ana, name: "ana" }] });
    const { logger } = capturingLogger();
    adapter = new SlackAdapter({ botToken, signingSecret, apiUrl: fake.apiUrl, logger, clock: new InstantClock() });
    const route = adapter.webhookRoutes()[0];
    expect(route?.path).toBe("/slack/events");
    const server = createServer((request, response) => void route?.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      fake.transport = { kind: "http", url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events` };
      const sink = new RecordingSink();
      let release: () => void = () => undefined;
      sink.gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      await adapter.start(sink);
      let answered = false;
      const delivering = fake.userMessage({ channel, user: ana, text: "slow world" }).finally(() => {
        answered = true;
      });
      // The world has the message but has not stored it yet: Slack has no answer (it used to get
      // its 200 before the world saw the message, so a crash here lost it).
      for (let round = 0; round < 400 && sink.messages.length === 0; round += 1)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(sink.messages).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered).toBe(false);
      release();
      const { delivery } = await delivering;
      expect(delivery.status).toBe(200);
      expect(sink.accepted.map((message) => message.text)).toEqual(["slow world"]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  it("over Socket Mode an event's envelope is acknowledged once the world has taken it, so that a crash before then makes Slack deliver it again", async () => {
    const h = await socketAdapter();
    let release: () => void = () => undefined;
    h.sink.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const delivering = h.fake.userMessage({ channel, user: ana, text: "slow world" });
    for (let round = 0; round < 400 && h.sink.messages.length === 0; round += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    try {
      expect(h.sink.messages).toHaveLength(1);
      // The world has the message but has not stored it yet: no ack has gone out (Bolt's own
      // receiver sent it before the world saw the message, so a crash here lost it).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(h.fake.socket.acked).toEqual([]);
    } finally {
      release();
    }
    await delivering;
    expect(h.fake.socket.acked).toHaveLength(1);
    expect(h.sink.accepted.map((message) => message.text)).toEqual(["slow world"]);
    // Slack sends it again (as after a crash): acknowledged, and the world dedupes it.
    const [first] = h.sink.messages;
    await h.fake.deliverEvent(
      { type: "message", channel, user: ana, text: "slow world", ts: first?.platformMessageId, team: teamId },
      { retryNum: 1 },
    );
    expect(h.fake.socket.acked).toHaveLength(2);
    expect(h.sink.messages).toHaveLength(2);
    expect(h.sink.accepted).toHaveLength(1);
  });
  it("over Socket Mode a button press's envelope is acknowledged once the world has taken the click", async () => {
    const h = await socketAdapter();
    h.fake.messages.add({
      channel,
      user: h.fake.botUserId,
      bot_id: h.fake.botId,
      text: "card",
      ts: "1800000000.000010",
    });
    let release: () => void = () => undefined;
    h.sink.clickGate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const pressing = h.fake.press({
      user: ana,
      channel,
      messageTs: "1800000000.000010",
      actionId: "roundtable_approval_once",
      value: "approval-1|once",
    });
    try {
      for (let round = 0; round < 400 && h.sink.clicks.length === 0; round += 1)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(h.sink.clicks).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(h.fake.socket.acked).toEqual([]);
    } finally {
      release();
    }
    const { status } = await pressing;
    expect(status).toBe(200);
    expect(h.fake.socket.acked).toHaveLength(1);
  });
  it("over Socket Mode an event the world has not stored in 2.5 s (the database away) is left unacknowledged, with a log line, and taken once when Slack sends it again", async () => {
    const h = await socketAdapter();
    let release: () => void = () => undefined;
    h.sink.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The fake gives up on an ack after 10 s (Slack sends the event again then).
    const delivering = h.fake.userMessage({ channel, user: ana, text: "very slow world" }).then(
      () => "acked",
      (error: unknown) => String(error),
    );
    try {
      await vi.waitFor(
        () => expect(logsMatching(h.lines, /slack event not stored in time .* left unacknowledged/)).toHaveLength(1),
        { timeout: 8_000 },
      );
      expect(h.sink.accepted).toHaveLength(0);
      expect(h.fake.socket.acked).toEqual([]);
    } finally {
      release();
    }
    await h.adapter.idle();
    expect(h.fake.socket.acked).toEqual([]);
    expect(await delivering).toMatch(/not acked/);
    const [first] = h.sink.messages;
    await h.fake.deliverEvent(
      { type: "message", channel, user: ana, text: "very slow world", ts: first?.platformMessageId, team: teamId },
      { retryNum: 1 },
    );
    expect(h.fake.socket.acked).toHaveLength(1);
    expect(h.sink.accepted.map((message) => message.text)).toEqual(["very slow world"]);
  }, 20_000);
  it("over HTTP an event the world has not stored in 2.5 s (the database away) is answered 503, so that Slack sends it again", async () => {
    fake = await FakeSlack.start({ botToken, signingSecret, teamId, users: [{ id: ana, name: "ana" }] });
    const { logger, lines } = capturingLogger();
    adapter = new SlackAdapter({ botToken, signingSecret, apiUrl: fake.apiUrl, logger, clock: new InstantClock() });
    const route = adapter.webhookRoutes()[0];
    const server = createServer((request, response) => void route?.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      fake.transport = { kind: "http", url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events` };
      const sink = new RecordingSink();
      let release: () => void = () => undefined;
      sink.gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      await adapter.start(sink);
      const { delivery } = await fake.userMessage({ channel, user: ana, text: "slow database" });
      expect(delivery.status).toBe(503);
      expect(logsMatching(lines, /slack event not stored in time .* answering 503/)).toHaveLength(1);
      release();
      await adapter.idle();
      expect(sink.accepted.map((message) => message.text)).toEqual(["slow database"]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  it("over Socket Mode an envelope without a payload is left unacknowledged, with a log line", async () => {
    const h = await socketAdapter();
    await expect(h.fake.socket.send("interactive", undefined, { timeoutMs: 300 })).rejects.toThrow(/not acked/);
    expect(
      logsMatching(
        h.lines,
        /slack socket envelope without a payload or before Bolt is ready; left for Slack to send again/,
      ),
    ).toHaveLength(1);
  });
  it("a streamed answer that outgrows one message goes on in new messages, each below the limit, nothing lost", async () => {
    const h = await socketAdapter();
    h.fake.messages.add({ channel, user: ana, text: "root", ts: thread.thread });
    const recorded: string[][] = [];
    const stream = await openStream(
      h.adapter,
      thread,
      { kind: "agent", id: "alice", name: "alice" },
      { posted: async (sent) => void recorded.push(sent.ids) },
    );
    const paragraphs = Array.from({ length: 60 }, (_, index) => `Paragraph ${index}: ${"x & y < z ".repeat(20)}`);
    let text = "";
    for (const paragraph of paragraphs) {
      text += `${paragraph}\n\n`;
      stream.update(text);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const sent = await stream.finish(text.trim());
    expect(sent.ids.length).toBeGreaterThanOrEqual(3);
    const posts = sent.ids.map((ts) => h.fake.messages.find(channel, ts));
    for (const post of posts) expect(post?.text.length ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(3900);
    const all = posts.map((post) => post?.text ?? "").join("\n\n");
    for (let index = 0; index < paragraphs.length; index += 1)
      expect(all).toContain(`Paragraph ${index}: x &amp; y &lt; z`);
    // Every message the stream made was reported as it appeared, and none is left over.
    expect(recorded.at(-1)).toEqual(sent.ids);
    expect(h.fake.botPosts(channel, thread.thread).filter((post) => post.ts !== thread.thread)).toHaveLength(
      sent.ids.length,
    );
  });
  it("says when Socket Mode cannot connect because the app-level token is refused", async () => {
    fake = await FakeSlack.start({ botToken, appToken, signingSecret, teamId });
    const { logger } = capturingLogger();
    adapter = new SlackAdapter({ botToken, appToken: "xapp-wrong", apiUrl: fake.apiUrl, logger, retries: 0 });
    await expect(adapter.start(new RecordingSink())).rejects.toThrow(
      /slack Socket Mode could not connect \(check SLACK_APP_TOKEN.*\): invalid_auth/,
    );
    expect(adapter.isConnected()).toBe(false);
  });
});
