import type { Api } from "grammy";
import type { Logger } from "../../src/log/logger.js";
import type { ChannelClock, ChatRef } from "../../src/world/channel-adapter.js";
import { chatIdOf, isPrivateChat } from "./api.js";

/** How long a looked-up membership is trusted. */
const cacheMs = 60_000;

/**
 * `['admin']` for a chat's creator and administrators, so that a world's `admins` approvers
 * work on Telegram. Looked up (getChatMember) only for button presses in groups, cached briefly.
 */
export class AdminRoles {
  private readonly cache = new Map<string, { roles: string[]; at: number }>();

  constructor(
    private readonly api: Api,
    private readonly clock: ChannelClock,
    private readonly logger: Logger,
  ) {}

  async rolesOf(chat: ChatRef, userId: string): Promise<string[]> {
    if (isPrivateChat(chat) || !/^\d+$/.test(userId)) return [];
    const key = `${chat.channel}:${userId}`;
    const cached = this.cache.get(key);
    if (cached && this.clock.now() - cached.at < cacheMs) return cached.roles;
    let roles: string[] = [];
    try {
      const member = await this.api.getChatMember(chatIdOf(chat), Number(userId));
      roles = member.status === "creator" || member.status === "administrator" ? ["admin"] : [];
    } catch (error) {
      // Without the lookup the user is judged by id alone; that never grants too much.
      this.logger.warn({ err: error, chat: chat.channel }, "telegram chat member lookup failed");
      return [];
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { roles, at: this.clock.now() });
    return roles;
  }
}
