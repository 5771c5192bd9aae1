import { writerFor } from "../../src/world/delivery/channel-writer.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { TelegramPart } from "../../channels/telegram/render.js";
import type { EditStream } from "../../src/world/delivery/edit-stream.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import type { Author } from "../../src/world/message.js";
import {
  aliceToken,
  ana,
  groupId,
  type Harness,
  harness,
  InstantClock,
  logsMatching,
  ManualClock,
  mainToken,
} from "./helpers.js";

const group: ChatRef = { platform: "telegram", channel: String(groupId) };
const alice: Author = { kind: "agent", id: "alice", name: "alice" };
const badGateway = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>";

/** Let the adapter's pending promises and the fake's answers run (no time passes on the clock). */
async function drain(rounds = 20): Promise<void> {
  for (let index = 0; index < rounds; index += 1) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** Bot API servers that are not Telegram: emulators, proxies, a server that is down. */
describe("telegram against Bot API servers that behave otherwise (#28)", () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it("is ready once getMe succeeded and polling started, before any long poll returns", async () => {
    h = await harness({ pollingTimeoutSeconds: 30 });
    let polls = 0;
    h.fake.onArrival = (method) => {
      if (method === "getUpdates") polls += 1;
    };
    expect(h.adapter.isConnected()).toBe(false);
    await h.adapter.start(h.sink);
    await vi.waitFor(() => expect(polls).toBe(1));
    expect(h.fake.callsTo("getUpdates")).toHaveLength(0); // asked, not answered
    // The first long poll is still waiting on the server (30 s), and the adapter counts as ready.
    expect(h.adapter.isConnected()).toBe(true);
  });

  it("a failed poll shows as not ready; the retry asks without waiting and is ready again at once", async () => {
    const clock = new ManualClock();
    h = await harness({ clock, pollingTimeoutSeconds: 30 });
    h.fake.failNext("getUpdates", {
      error_code: 409,
      description: "Conflict: terminated by other getUpdates request",
    });
    await h.adapter.start(h.sink);
    await vi.waitFor(() => expect(h.fake.callsTo("getUpdates")).toHaveLength(1));
    await vi.waitFor(() => expect(clock.sleeping()).toBe(1)); // the backoff after the failure
    expect(h.adapter.isConnected()).toBe(false);
    clock.advance(1000);
    await vi.waitFor(() => expect(h.fake.callsTo("getUpdates")).toHaveLength(2));
    expect(h.fake.callsTo("getUpdates")[1]?.params.timeout).toBe(0);
    await vi.waitFor(() => expect(h.adapter.isConnected()).toBe(true));
    // Back to long polls (this one waits on the server), and still ready meanwhile.
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "after the failure" });
    await vi.waitFor(() => expect(h.sink.messages.map((message) => message.text)).toEqual(["after the failure"]));
    expect(h.adapter.isConnected()).toBe(true);
  });

  it("a server that answers long polls at once gets at most one poll a second, and updates come at once", async () => {
    const clock = new ManualClock();
    h = await harness({ clock, pollingTimeoutSeconds: 30 });
    h.fake.answerPollsAtOnce = true;
    await h.adapter.start(h.sink);
    await vi.waitFor(() => expect(clock.sleeping()).toBe(1));
    await drain();
    // One empty answer, then a wait on the clock: no second call until the gap has passed.
    expect(h.fake.callsTo("getUpdates")).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThan(0);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(1000);

    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "hello" });
    h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "again" });
    clock.advance(1000);
    // The poll brings both updates; the next poll follows at once (no gap after updates), answers
    // empty, and only then the adapter waits again.
    await vi.waitFor(() => expect(h.sink.messages.map((message) => message.text)).toEqual(["hello", "again"]));
    await vi.waitFor(() => expect(clock.sleeping()).toBe(1));
    await drain();
    expect(h.fake.callsTo("getUpdates")).toHaveLength(3);
    expect(clock.sleeps).toHaveLength(2);
  });

  it("a bare HTTP 502 (a proxy's page, not JSON) is retried with backoff, and the message is sent once", async () => {
    const clock = new InstantClock();
    h = await harness({ clock });
    await h.adapter.start(h.sink);
    h.fake.failNext("sendMessage", { error_code: 502, description: "", raw: { body: badGateway } }, { times: 2 });
    const sent = await writerFor(h.adapter).postMessage(group, { author: alice, text: "Through the proxy." });
    expect(h.fake.callsTo("sendMessage").map((call) => call.errorCode ?? 200)).toEqual([502, 502, 200]);
    expect(sent.ids).toHaveLength(1);
    expect(h.fake.messagesIn(groupId).map((message) => message.text)).toEqual(["alice: Through the proxy."]);
    const retries = logsMatching(h.lines, /telegram server error: retrying/);
    expect(retries.map((line) => line.status)).toEqual([502, 502]);
    // Backoff: each wait longer than the one before.
    expect(clock.sleeps).toEqual([1000, 2000]);
  });

  it("an answer not in the Bot API's shape is an error that says what came back, not 'undefined undefined'", async () => {
    h = await harness();
    await h.adapter.start(h.sink);
    h.fake.failNext("sendMessage", {
      error_code: 400,
      description: "",
      raw: { body: '{"error":"chat not found"}', contentType: "application/json" },
    });
    const failure = await writerFor(h.adapter)
      .postMessage(group, { author: alice, text: "Lost?" })
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    expect(failure?.message).toMatch(
      /refused: 400 HTTP 400 Bad Request, not a Bot API answer: \{"error":"chat not found"\}/,
    );
    expect(failure?.message).not.toMatch(/undefined/);
  });

  it("a polling failure with a body not in the Bot API's shape is logged with the status and the body", async () => {
    const clock = new ManualClock();
    h = await harness({ clock, pollingTimeoutSeconds: 30 });
    h.fake.failNext("getUpdates", {
      error_code: 404,
      description: "",
      raw: { body: '{"message":"no such route"}', contentType: "application/json" },
    });
    await h.adapter.start(h.sink);
    await vi.waitFor(() => expect(logsMatching(h.lines, /telegram polling failed/)).toHaveLength(1));
    const [line] = logsMatching(h.lines, /telegram polling failed/);
    const err = line?.err as { message?: string };
    expect(err.message).toContain('404: HTTP 404 Not Found, not a Bot API answer: {"message":"no such route"}');
    expect(err.message).not.toContain("undefined");
  });

  it("an agent's own bot finishing a stream whose text is already shown does not wait for the edit interval", async () => {
    const clock = new ManualClock();
    h = await harness({ clock, agentBots: [{ agent: "alice", token: aliceToken }] });
    await h.adapter.start(h.sink);
    const stream = (await writerFor(h.adapter).openStream(group, alice)) as EditStream<TelegramPart>;
    stream.update("The build is green.");
    await stream.settled();
    expect(h.fake.callsTo("sendMessage", aliceToken)).toHaveLength(1);
    let done = false;
    const finishing = stream.finish("The build is green.").then((sent) => {
      done = true;
      return sent;
    });
    await drain();
    // Nothing to change (no buttons on an agent bot's message): finished without the 3 s wait.
    expect(done).toBe(true);
    expect((await finishing).ids).toHaveLength(1);
    expect(h.fake.callsTo("editMessageText", aliceToken)).toHaveLength(0);
    expect(h.fake.messagesIn(groupId).map((message) => message.text)).toEqual(["The build is green."]);
  });
});
