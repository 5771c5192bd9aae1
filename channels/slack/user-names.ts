import type { webApi } from "@slack/bolt";
import type { Logger } from "../../src/log/logger.js";

/** How long a looked-up name is kept. */
const nameTtlMs = 60 * 60 * 1000;

/**
 * People's display names by user id (`users.info`, cached an hour). A failed look-up (no
 * `users:read`, unknown user) leaves the id as the name and is not retried for a while.
 */
export class UserNames {
  private readonly names = new Map<string, { name: string; at: number }>();

  constructor(
    private readonly client: webApi.WebClient,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Names of `ids`, looked up where not known. */
  async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    await Promise.all(
      ids.map(async (id) => {
        found.set(id, await this.nameOf(id));
      }),
    );
    return found;
  }

  async nameOf(id: string): Promise<string> {
    const cached = this.names.get(id);
    if (cached && this.now() - cached.at < nameTtlMs) return cached.name;
    let name = id;
    try {
      const result = await this.client.users.info({ user: id });
      const profile = result.user?.profile;
      name = profile?.display_name || profile?.real_name || result.user?.real_name || result.user?.name || id;
    } catch (error) {
      this.logger.debug({ err: error, user: id }, "slack user name unknown; the id stands in");
    }
    this.names.set(id, { name, at: this.now() });
    return name;
  }
}
