import type { MessageRecord } from "../../world/records.js";

/** Reads the newest `latest` messages of a chat with `seq > afterSeq`, in stored order. */
export type ReadLatest = (chatKey: string, latest: number, afterSeq?: number) => Promise<MessageRecord[]>;

interface Held {
  /** The newest messages of the chat, in stored order, with nothing missing between them. */
  messages: MessageRecord[];
  /** True when `messages` is the whole chat. */
  whole: boolean;
}

/**
 * The newest messages of recently active chats, kept in memory and brought up to date by
 * reading only the rows stored since (usually one or two) instead of the whole window (a
 * request view reads up to 500 on every step). Stored messages are never deleted and change
 * only by a policy hook's outcome (which calls {@link forget}), so a chat's newest part is
 * what was read before plus what came after.
 *
 * Only for SQLite: a sequence number there is taken inside the writer's lock, so a row with a
 * higher `seq` is never visible before a lower one. On PostgreSQL two transactions may commit
 * their rows out of order, and "everything after the last seq seen" could miss one.
 *
 * Bounded: at most `maxMessages` records in all (least recently read chats go first).
 */
export class RecentMessages {
  /** Insertion order is recency: a read moves its chat to the end. */
  private readonly chats = new Map<string, Held>();
  private count = 0;

  constructor(
    private readonly read: ReadLatest,
    private readonly maxPerChat = 500,
    private readonly maxMessages = 10_000,
  ) {}

  /** The newest `latest` messages of the chat, in stored order (a fresh array). */
  async latest(chatKey: string, latest: number): Promise<MessageRecord[]> {
    const wanted = Math.max(0, Math.floor(latest));
    if (wanted > this.maxPerChat) return this.read(chatKey, wanted);
    const held = this.chats.get(chatKey);
    this.forget(chatKey);
    let current: Held;
    if (held && (held.whole || held.messages.length >= wanted)) {
      current = await this.catchUp(chatKey, held);
    } else {
      const messages = await this.read(chatKey, this.maxPerChat);
      current = { messages, whole: messages.length < this.maxPerChat };
    }
    this.keep(chatKey, current);
    return current.messages.slice(-wanted);
  }

  /** The held messages plus those stored since; a large jump reads the window afresh. */
  private async catchUp(chatKey: string, held: Held): Promise<Held> {
    const lastSeq = held.messages.at(-1)?.seq ?? -1;
    const newer = await this.read(chatKey, this.maxPerChat, lastSeq);
    if (newer.length >= this.maxPerChat) return { messages: newer, whole: false };
    const messages = held.messages.concat(newer);
    const overflow = messages.length - this.maxPerChat;
    return overflow > 0 ? { messages: messages.slice(overflow), whole: false } : { messages, whole: held.whole };
  }

  private keep(chatKey: string, held: Held): void {
    this.forget(chatKey); // a read of the same chat that finished meanwhile
    this.chats.set(chatKey, held);
    this.count += held.messages.length;
    for (const key of this.chats.keys()) {
      if (this.count <= this.maxMessages || key === chatKey) break;
      this.forget(key);
    }
  }

  /** Drop what is held of a chat (a message of it changed): the next read reads it afresh. */
  forget(chatKey: string): void {
    const held = this.chats.get(chatKey);
    if (!held) return;
    this.count -= held.messages.length;
    this.chats.delete(chatKey);
  }
}
