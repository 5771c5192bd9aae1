/** One service process of a chaos run (times are the harness's `performance.now()`). */
export interface Life {
  slot: number;
  pid: number;
  startedAt: number;
  /** When the harness sent it SIGKILL. */
  killedAt?: number;
  /** When it first answered `/readyz`. */
  readyAt?: number;
}

/** A `sendMessage` the Telegram fake accepted, and which process sent it. */
export interface Post {
  /** When the fake wrote its answer. */
  at: number;
  chatId: number;
  messageId: number;
  text: string;
  /** Undefined when the connection could not be traced to a process. */
  pid: number | undefined;
}

/** What one copy of a doubled answer was. */
export interface CopyVerdict {
  messageId: number;
  pid?: number;
  slot?: number;
  /** Milliseconds from the fake's answer to the sender's SIGKILL (negative: killed while in flight). */
  killedAfterMs?: number;
  /** Its id is stored (so a later copy was posted although the service knew of this one). */
  stored: boolean;
}

export interface DoubleVerdict {
  token: string;
  chatId: number;
  /**
   * Every copy but the last came from a process killed at most `windowMs` after its answer,
   * and its id was never stored.
   */
  inWindow: boolean;
  copies: CopyVerdict[];
}

/**
 * Whether the copies of an answer shown more than once are explained by the one window that
 * cannot be closed (Telegram has no idempotency key): the platform accepted a copy's
 * `sendMessage` and its sender was SIGKILLed before it could store the returned id. So every
 * copy but the last must come from a process killed at most `windowMs` after the fake answered
 * it (or while the answer was on its way), and its id must be missing from the database (a
 * stored id that was posted again is a re-run's fault, however soon the kill came). Anything
 * else (a sender still alive, killed later, or unknown) is a double the service should not
 * have made.
 */
export function judgeDoubles(
  token: string,
  chatId: number,
  messageIds: number[],
  record: { lives: Life[]; posts: Post[]; windowMs: number; storedIds: ReadonlySet<string> },
): DoubleVerdict {
  const copies = messageIds.map((messageId): CopyVerdict => {
    const post = record.posts.find((entry) => entry.chatId === chatId && entry.messageId === messageId);
    const life = post?.pid === undefined ? undefined : record.lives.find((entry) => entry.pid === post.pid);
    return {
      messageId,
      stored: record.storedIds.has(`${chatId}/${messageId}`),
      ...(life === undefined ? {} : { pid: life.pid, slot: life.slot }),
      ...(post === undefined || life?.killedAt === undefined
        ? {}
        : { killedAfterMs: Math.round(life.killedAt - post.at) }),
    };
  });
  const inWindow = copies
    .slice(0, -1)
    .every((copy) => !copy.stored && copy.killedAfterMs !== undefined && copy.killedAfterMs <= record.windowMs);
  return { token, chatId, inWindow, copies };
}
