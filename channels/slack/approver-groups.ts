import type { webApi } from "@slack/bolt";
import type { Logger } from "../../src/log/logger.js";

/** How long a group's members are trusted before they are looked up again. */
const groupCacheMs = 60_000;

/**
 * The user groups (by handle) that approvers name as `role:<handle>`, and who is in them
 * (`usergroups.list` + `usergroups.users.list`, cached briefly). A click carries the handles of
 * the groups its user belongs to as roles, which the world checks against the approvers.
 */
export class ApproverGroups {
  private cache: { at: number; members: Map<string, Set<string>> } | undefined;
  private loading: Promise<Map<string, Set<string>>> | undefined;

  constructor(
    private readonly client: webApi.WebClient,
    private readonly handles: readonly string[],
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Handles of the configured groups `userId` belongs to. */
  async rolesOf(userId: string): Promise<string[]> {
    if (this.handles.length === 0) return [];
    const members = await this.members();
    return [...members].filter(([, users]) => users.has(userId)).map(([handle]) => handle);
  }

  private async members(): Promise<Map<string, Set<string>>> {
    if (this.cache && this.now() - this.cache.at < groupCacheMs) return this.cache.members;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<Map<string, Set<string>>> {
    const members = new Map<string, Set<string>>();
    try {
      const list = await this.client.usergroups.list({});
      const wanted = new Set(this.handles.map((handle) => handle.toLowerCase()));
      for (const group of list.usergroups ?? []) {
        const handle = group.handle?.toLowerCase();
        if (!group.id || !handle || !wanted.has(handle)) continue;
        const users = await this.client.usergroups.users.list({ usergroup: group.id });
        members.set(handle, new Set(users.users ?? []));
      }
      for (const handle of wanted) {
        if (!members.has(handle))
          this.logger.warn(
            { group: handle },
            `approvers name role:${handle}, but Slack has no user group with that handle`,
          );
      }
      this.cache = { at: this.now(), members };
    } catch (error) {
      // Without the groups nobody is approved through them; the last known members are kept.
      this.logger.error(
        { err: error },
        "slack user groups could not be read (usergroups:read); role: approvers are not recognised",
      );
      return this.cache?.members ?? members;
    }
    return members;
  }
}
