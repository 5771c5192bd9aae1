/**
 * Waiting costs no slot (docs/performance.md, "Real model speeds"): with `queue.concurrency: 8`,
 * 200 chats whose model is slow (the real OpenAI SDK against its fake, which streams the first
 * words and then holds the rest) are all streaming at once, on SQLite and on PostgreSQL; once
 * the model goes on, every chat gets its whole answer. Not timed: it waits for the state.
 */
import { afterEach, describe, expect, it } from "vitest";
import { providerConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import { createProvider } from "../../src/providers/create-provider.js";
import { chatKey, type ChatRef } from "../../src/world/chat-ref.js";
import type { FakeModelServer, RecordedRequest } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { createHarness, type Harness } from "./harness.js";

const chats = 200;
const slots = 8;

let h: Harness | undefined;
let model: FakeModelServer | undefined;
let dropDatabase: (() => Promise<void>) | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await model?.close();
  model = undefined;
  await dropDatabase?.();
  dropDatabase = undefined;
});

/** The chat named in the request's last user message (`from chat-N`). */
function chatOf(request: RecordedRequest): string {
  const body = JSON.stringify(request.body);
  return /from (chat-\d+)/.exec(body)?.[1] ?? "unknown";
}

async function slowWorld(databaseUrl?: string) {
  let release: () => void = () => {};
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  model = await startOpenAIFake({
    apiKey: "test",
    record: false,
    respond: (request) => ({
      type: "reply",
      text: [`first words for ${chatOf(request)}`, " and the rest."],
      // The role frame and the first words now; the rest once the test lets the model go on.
      hold: { frames: 2, until },
    }),
  });
  const provider = createProvider(
    "openai",
    providerConfigSchema.parse({ apiKey: "test", baseUrl: model.baseUrl }),
    silentLogger(),
    { env: {} },
  );
  h = await createHarness({
    agents: [{ name: "alice", provider }],
    world: { defaultAgent: "alice", limits: { messagesPerMinute: 100_000 } },
    queue: { concurrency: slots, inFlight: 400 },
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
  });
  return { h, release };
}

async function allStreamingAtOnce(databaseUrl?: string): Promise<void> {
  const { h, release } = await slowWorld(databaseUrl);
  const streaming = new Set<string>();
  h.roundtable.engine.outbox.subscribe((event) => {
    if (event.type === "stream" && event.phase === "delta") streaming.add(event.chat.channel);
  });
  const usage = () => h.roundtable.engine.context.stepSlots?.usage();
  let mostBusy = 0;
  const watch = setInterval(() => {
    mostBusy = Math.max(mostBusy, usage()?.busy ?? 0);
  }, 5);
  try {
    const names = Array.from({ length: chats }, (_, index) => `chat-${index}`);
    for (const name of names) await h.say(`hello from ${name}`, { channel: name });

    // Every chat's answer has begun to stream, and none has ended: 200 answers in flight.
    await h.waitFor(() => streaming.size === chats && usage()?.waiting === chats, 120_000);
    expect([...streaming].sort()).toEqual([...names].sort());
    expect(usage()).toMatchObject({ steps: chats, waiting: chats });
    // Waiting steps hold no slot.
    expect(usage()?.busy).toBe(0);

    release();
    await h.waitFor(async () => (await answered(h, names)) === chats, 120_000);
    await h.idle();
    expect(mostBusy).toBeLessThanOrEqual(slots);
    const chat: ChatRef = h.chat("chat-7");
    const stored = await h.store.listMessages(chatKey(chat));
    expect(stored.map((message) => message.text)).toEqual([
      "hello from chat-7",
      "first words for chat-7 and the rest.",
    ]);
  } finally {
    clearInterval(watch);
    release();
  }
}

/** How many chats have alice's whole answer posted. */
async function answered(h: Harness, names: string[]): Promise<number> {
  const posted = new Set(
    h.channel
      .messages()
      .filter((message) => message.text.endsWith("and the rest."))
      .map((message) => message.chat.channel),
  );
  return names.filter((name) => posted.has(name)).length;
}

describe("waiting costs no slot (SQLite)", () => {
  it(`${chats} chats waiting on a slow model are all streaming at once with queue.concurrency ${slots}`, async () => {
    await allStreamingAtOnce();
  }, 300_000);
});

describePostgres("waiting costs no slot (PostgreSQL)", (serverUrl) => {
  it(`${chats} chats waiting on a slow model are all streaming at once with queue.concurrency ${slots}`, async () => {
    const database = await createPostgresDatabase(serverUrl());
    dropDatabase = database.drop;
    await allStreamingAtOnce(database.url);
  }, 300_000);
});
