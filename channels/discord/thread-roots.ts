import type { Logger } from "../../src/log/logger.js";
import type { ChatRef, ThreadRoot } from "../../src/world/channel-adapter.js";
import { type DiscordApi, discordCodeOf, discordErrorCodes } from "./api.js";
import type { MentionDirectory } from "./mentions.js";
import { type OwnIdentities, parseMessage } from "./parse.js";

/**
 * The message a thread hangs off, so that the first turn in a thread sees what it is about.
 * A thread started from a message has that message's id and the message lives in the parent
 * channel; a thread started on its own (a forum post) begins with a message of the same id
 * inside it. Looked up once per thread.
 */
export class ThreadRoots {
  private readonly known = new Map<string, Promise<ThreadRoot | undefined>>();

  constructor(
    private readonly api: DiscordApi,
    private readonly logger: Logger,
  ) {}

  rootOf(chat: ChatRef, directory: MentionDirectory, own: OwnIdentities): Promise<ThreadRoot | undefined> {
    const threadId = chat.thread;
    if (threadId === undefined) return Promise.resolve(undefined);
    let root = this.known.get(threadId);
    if (!root) {
      root = this.fetch(chat, threadId, directory, own);
      this.known.set(threadId, root);
    }
    return root;
  }

  private async fetch(
    chat: ChatRef,
    threadId: string,
    directory: MentionDirectory,
    own: OwnIdentities,
  ): Promise<ThreadRoot | undefined> {
    for (const channelId of [chat.channel, threadId]) {
      try {
        const raw = await this.api.fetchMessage(channelId, threadId);
        const parsed = parseMessage(raw, chat, directory, own);
        if (parsed.kind !== "message") return undefined;
        const { message } = parsed;
        return {
          platformMessageId: message.platformMessageId,
          sender: message.sender,
          text: message.text,
          ...(message.ownEcho === true ? { ownPost: true } : {}),
        };
      } catch (error) {
        if (discordCodeOf(error) === discordErrorCodes.unknownMessage) continue;
        this.logger.warn({ err: error, thread: threadId }, "the thread's first message could not be read");
        this.known.delete(threadId);
        return undefined;
      }
    }
    return undefined;
  }
}
