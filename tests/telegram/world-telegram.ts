import { TelegramAdapter } from "../../channels/telegram/adapter.js";
import type { TelegramAdapterOptions } from "../../channels/telegram/options.js";
import type { ChannelClock as TelegramClock } from "../../src/world/channel-adapter.js";
import { type ChatRef, chatKey } from "../../src/world/chat-ref.js";
import type { FakeEntity } from "../fakes/telegram-html.js";
import { FakeTelegramApi, type FakeBotSetup, type FakeUser, type StoredMessage } from "../fakes/telegram-api.js";
import { createHarness, type Harness, type HarnessOptions } from "../world/harness.js";
import { capturingLogger, groupId, InstantClock, mainToken } from "./helpers.js";

/** Bob's own bot, for the tests where an agent posts as itself. */
export const bobToken = "1002:bob-token";
export const boss: FakeUser = { id: 222, is_bot: false, first_name: "Boss" };
export const group: ChatRef = { platform: "telegram", channel: String(groupId) };
export const groupKey = chatKey(group);

export interface WorldTelegramOptions extends Omit<HarnessOptions, "channels" | "channelsConfig" | "platform"> {
  /** Extra bots on the fake (agents' own bots). */
  extraBots?: FakeBotSetup[];
  /** Adapter options beyond token, API root, agent names, logger and clock. */
  adapter?: Partial<TelegramAdapterOptions>;
  clock?: TelegramClock;
  /** Prepare the fake before the adapter starts (e.g. make a start-up call fail). */
  beforeStart?: (fake: FakeTelegramApi) => void;
  /** `channels.telegram.chats` (default `{ "*": "main" }`). */
  chats?: Record<string, string>;
}

/**
 * The real world engine (SQLite, queue, tool loop, scripted models) with the real Telegram
 * adapter on a fake Bot API: a person's message goes in through `getUpdates`, the world's
 * answers come out as Bot API calls the fake records.
 */
export interface WorldTelegram {
  fake: FakeTelegramApi;
  adapter: TelegramAdapter;
  world: Harness;
  lines: Record<string, unknown>[];
  /** A person writes in the group; resolves when the world has taken it and gone idle. */
  say(
    from: FakeUser,
    text: string,
    options?: { entities?: FakeEntity[]; replyTo?: number; chatId?: number },
  ): Promise<Update>;
  /** Wait until the adapter has handled `update` (its offset is confirmed), then until the world is idle. */
  settle(update: Update): Promise<void>;
  /** A person presses a button of a message in the group; resolves once the press is answered and the world is idle. */
  press(from: FakeUser, messageId: number, data: string, chatId?: number): Promise<string>;
  /** The messages bots posted in the group, in order, as a Telegram client shows them. */
  botMessages(): StoredMessage[];
  /** Bot messages in the group as `text` lines. */
  botTexts(): string[];
  close(): Promise<void>;
}

type Update = Record<string, unknown>;

/** A mention entity for `@name` at the start of `text` (Telegram marks mentions this way). */
export function leadingMention(text: string): FakeEntity[] {
  const match = /^@\w+/.exec(text);
  return match ? [{ type: "mention", offset: 0, length: match[0].length }] : [];
}

export async function worldOnTelegram(options: WorldTelegramOptions): Promise<WorldTelegram> {
  const fake = await FakeTelegramApi.start([
    { token: mainToken, username: "roundtable_bot", firstName: "Roundtable", canReadAllGroupMessages: true },
    ...(options.extraBots ?? []),
  ]);
  fake.addChat({ id: groupId, type: "supergroup", title: "Release team" });
  options.beforeStart?.(fake);
  const { logger, lines } = capturingLogger();
  const adapter = new TelegramAdapter({
    token: mainToken,
    apiRoot: fake.apiRoot,
    logger,
    agentNames: options.agents.map((agent) => agent.name),
    pollingTimeoutSeconds: 1,
    clock: options.clock ?? new InstantClock(),
    ...options.adapter,
  });
  const {
    extraBots: _bots,
    adapter: _adapter,
    clock: _clock,
    beforeStart: _before,
    chats: _chats,
    ...harnessOptions
  } = options;
  let world: Harness;
  try {
    world = await createHarness({
      ...harnessOptions,
      channels: [adapter],
      channelsConfig: { telegram: { chats: options.chats ?? { "*": "main" } } },
    });
  } catch (error) {
    await fake.close();
    throw error;
  }
  const settle = async (update: Update): Promise<void> => {
    const updateId = update.update_id as number;
    // The poller confirms an update's offset only after the world has it (and a press is answered).
    await world.waitFor(() => fake.confirmedOffset(mainToken) > updateId);
    // A world that kept failing makes the poller skip the update: say why instead of a vague miss.
    const refused = lines.find((line) => line.updateId === updateId && /not handled|skipped/.test(String(line.msg)));
    if (refused) throw new Error(`the world did not take update ${updateId}: ${JSON.stringify(refused.err)}`);
    await world.idle();
  };
  const botMessages = (): StoredMessage[] => fake.messagesIn(groupId).filter((message) => message.from.is_bot);
  return {
    fake,
    adapter,
    world,
    lines,
    settle,
    async say(from, text, sayOptions = {}) {
      const { update } = fake.userMessage(mainToken, {
        chatId: sayOptions.chatId ?? groupId,
        from,
        text,
        entities: sayOptions.entities ?? leadingMention(text),
        ...(sayOptions.replyTo === undefined ? {} : { replyTo: sayOptions.replyTo }),
      });
      await settle(update);
      return update;
    },
    async press(from, messageId, data, chatId = groupId) {
      const queryId = fake.pressButton(mainToken, { chatId, messageId, from, data });
      await world.waitFor(() => fake.callbackAnswers.has(queryId));
      await world.idle();
      return queryId;
    },
    botMessages,
    botTexts: () => botMessages().map((message) => message.text),
    async close() {
      try {
        await world.close();
      } finally {
        await fake.close();
      }
    },
  };
}

/** About 10,000 characters of model output with everything that breaks naive HTML. */
export function nastyAnswer(): string {
  const paragraphs: string[] = [];
  for (let index = 0; paragraphs.join("\n\n").length < 10_000; index += 1) {
    paragraphs.push(
      `Step ${index}: if a < b && b > c then x <= y; use <div> & "quotes" &amp; 2 * 3 is six, *not closed; ` +
        "filler text to make the paragraph long enough for a realistic answer. ".repeat(3).trimEnd(),
    );
  }
  return paragraphs.join("\n\n");
}
