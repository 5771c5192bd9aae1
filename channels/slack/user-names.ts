import type { webApi } from "@slack/bolt";
import type { Logger } from "../../src/log/logger.js";

/** How long a looked-up name is kept. */
const nameTtlMs = 60 * 60 * 1000;

/** Most names kept (least recently used go first): a flood of strangers' ids cannot grow it. */
export const userNameCacheSize = 1_000;

/** Most `users.info` look-ups one message may cause; later unknown ids keep their raw id. */
export const userNameLookupsPerMessage = 10;

/**
 * Longest a message waits for its look-ups. A name only labels the text; the event it came with
 * must be stored and acked within Slack's 3 s (ack-after-storing.ts), so a slow `users.info`
 * (Slack busy, or its queue long) leaves the id as the name for this message, and the answer,
 * when it comes, names the next one.
 */
export const userNameWaitMs = 1_000;

/** The bounds of {@link UserNames} (tests make them small). */
export interface UserNameLimits {
  cacheSize: number;
  lookupsPerMessage: number;
  waitMs: number;
}

/**
 * People's display names by user id (`users.info`, cached an hour, at most
 * {@link userNameCacheSize} of them). A failed look-up (no `users:read`, unknown user) leaves
 * the id as the name and is not retried for a while.
 */
export class UserNames {
  private readonly names = new Map<string, { name: string; at: number }>();
  /** Look-ups under way: one `users.info` an id, however many messages wait for it. */
  private readonly asking = new Map<string, Promise<string>>();
  private readonly limits: UserNameLimits;

  constructor(
    private readonly client: webApi.WebClient,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    limits: Partial<UserNameLimits> = {},
  ) {
    this.limits = {
      cacheSize: userNameCacheSize,
      lookupsPerMessage: userNameLookupsPerMessage,
      waitMs: userNameWaitMs,
      ...limits,
    };
  }

  /**
   * Names of `ids` (one message's sender first, then the people it mentions): known ones from
   * the cache, at most `lookupsPerMessage` looked up; the rest are left out, so they show as
   * their mention's label or raw id. A message with 500 mentions costs at most that many calls.
   * Waits at most `waitMs` for them: those not answered by then are left out too.
   */
  async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const unknown: string[] = [];
    for (const id of new Set(ids)) {
      const cached = this.cached(id);
      if (cached !== undefined) found.set(id, cached);
      else unknown.push(id);
    }
    const looked = unknown.slice(0, this.limits.lookupsPerMessage);
    if (unknown.length > looked.length) {
      this.logger.debug(
        { skipped: unknown.length - looked.length },
        "slack user names: per-message look-up cap reached",
      );
    }
    if (looked.length === 0) return found;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.logger.debug({ users: looked.length }, "slack user names: look-up slow; ids stand in for this message");
        resolve();
      }, this.limits.waitMs);
    });
    const answered = Promise.all(
      looked.map(async (id) => {
        found.set(id, await this.nameOf(id));
      }),
    );
    await Promise.race([answered, waited]);
    clearTimeout(timer);
    return new Map(found);
  }

  async nameOf(id: string): Promise<string> {
    const cached = this.cached(id);
    if (cached !== undefined) return cached;
    let asking = this.asking.get(id);
    if (asking === undefined) {
      asking = this.lookUp(id).finally(() => this.asking.delete(id));
      this.asking.set(id, asking);
    }
    return asking;
  }

  private async lookUp(id: string): Promise<string> {
    let name = id;
    try {
      const result = await this.client.users.info({ user: id });
      const profile = result.user?.profile;
      name = profile?.display_name || profile?.real_name || result.user?.real_name || result.user?.name || id;
    } catch (error) {
      this.logger.debug({ err: error, user: id }, "slack user name unknown; the id stands in");
    }
    this.remember(id, name);
    return name;
  }

  /** How many names are kept now. */
  get size(): number {
    return this.names.size;
  }

  private cached(id: string): string | undefined {
    const entry = this.names.get(id);
    if (!entry) return undefined;
    if (this.now() - entry.at >= nameTtlMs) {
      this.names.delete(id);
      return undefined;
    }
    // Most recently used last: the Map's order is the eviction order.
    this.names.delete(id);
    this.names.set(id, entry);
    return entry.name;
  }

  private remember(id: string, name: string): void {
    this.names.delete(id);
    this.names.set(id, { name, at: this.now() });
    while (this.names.size > this.limits.cacheSize) {
      const oldest = this.names.keys().next();
      if (oldest.done) break;
      this.names.delete(oldest.value);
    }
  }
}
