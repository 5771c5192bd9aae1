import type { webApi } from "@slack/bolt";
import type { Logger } from "../../src/log/logger.js";
import { chatKey, type InboundMessage, type ThreadRoot } from "../../src/world/channel-adapter.js";
import { resolveSlackText, type SlackNames } from "./mentions.js";
import type { UserNames } from "./user-names.js";

/** Threads whose root was already looked up (the world stores a root once anyway). */
const rememberedThreads = 2000;

/**
 * The message a thread hangs off (`conversations.replies`, first message), so that the first
 * turn in a thread sees what it is about. Looked up once per thread and process; a root that
 * cannot be read is left out (and logged), never holding the message up.
 */
export class ThreadRoots {
  private readonly known = new Map<string, ThreadRoot | undefined>();

  constructor(
    private readonly client: webApi.WebClient,
    private readonly names: UserNames,
    private readonly context: () => Omit<SlackNames, "userNames"> & { botId: string },
    private readonly logger: Logger,
  ) {}

  async rootOf(message: InboundMessage): Promise<ThreadRoot | undefined> {
    const { chat } = message;
    if (chat.thread === undefined || chat.thread === message.platformMessageId) return undefined;
    const key = chatKey(chat);
    if (this.known.has(key)) return this.known.get(key);
    const root = await this.fetch(chat.channel, chat.thread);
    this.known.set(key, root);
    if (this.known.size > rememberedThreads) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
    return root;
  }

  private async fetch(channel: string, threadTs: string): Promise<ThreadRoot | undefined> {
    try {
      const result = await this.client.conversations.replies({ channel, ts: threadTs, limit: 1, inclusive: true });
      const first = result.messages?.[0];
      if (!first || first.ts !== threadTs) return undefined;
      const context = this.context();
      const ownPost = first.bot_id === context.botId || first.user === context.botUserId;
      const senderId = first.user ?? first.bot_id ?? "unknown";
      const ids = [...(first.text ?? "").matchAll(/<@([UW][A-Z0-9]+)/g)].map((match) => match[1] as string);
      const userNames = await this.names.namesOf([...new Set([...ids, ...(first.user ? [first.user] : [])])]);
      const username = (first as { username?: string }).username;
      const displayName = ownPost ? (username ?? "roundtable") : (userNames.get(senderId) ?? username ?? senderId);
      return {
        platformMessageId: threadTs,
        sender: { id: senderId, displayName, isBot: ownPost || first.bot_id !== undefined },
        text: resolveSlackText(first.text ?? "", { ...context, userNames }).text,
        ...(ownPost ? { ownPost: true } : {}),
      };
    } catch (error) {
      this.logger.warn(
        { err: error, channel, threadTs },
        "slack thread root could not be read; the thread starts without it",
      );
      return undefined;
    }
  }
}
