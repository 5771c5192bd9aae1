import type { WorldSettings } from "../world-settings.js";
import type { AccountingStore } from "../stores/accounting-store.js";
import { utcClock } from "./utc-day.js";

/** The sliding window of `messagesPerMinute`. */
const rateWindowMs = 60_000;

/** A person over the world's message rate, and when their oldest counted message leaves the window. */
export interface RateExceeded {
  limit: number;
  resetsAt: Date;
}

/**
 * Whether a person's message at `at` is past `limits.messagesPerMinute`: more than the limit of
 * their messages on the platform in the 60 seconds up to and including it. Judged from stored
 * messages, so a re-run of the same step decides the same. `unstored` counts a message not
 * stored yet (ingress asks before storing one; the answer can only grow once it is stored and
 * others arrive, so a message judged past the rate there is past it at routing too).
 */
export async function messageRateExceeded(
  store: Pick<AccountingStore, "countPersonMessages">,
  world: Pick<WorldSettings, "limits">,
  platform: string,
  authorId: string,
  at: Date,
  unstored: 0 | 1 = 0,
  messageId?: string,
): Promise<RateExceeded | undefined> {
  const limit = world.limits.messagesPerMinute;
  const after = new Date(at.getTime() - rateWindowMs);
  const count = await store.countPersonMessages(platform, authorId, after, at, messageId);
  if (count + unstored <= limit) return undefined;
  return { limit, resetsAt: new Date(at.getTime() + rateWindowMs) };
}

/** The notice for a person past the rate, naming the limit and when it resets. */
export function rateNotice(name: string, exceeded: RateExceeded): string {
  return `${name}: you reached this world's limit of ${exceeded.limit} messages a minute (messagesPerMinute); the agents answer your messages again from ${utcClock(exceeded.resetsAt)}.`;
}
