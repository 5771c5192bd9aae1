import { ConfigError } from "../../errors/roundtable-error.js";
import type { ChannelAdapter } from "../channel-adapter.js";
import { isAgentIdentityChannel } from "./channel-optional.js";
import type { ChatRef, Platform } from "../chat-ref.js";
import type { Author } from "../message.js";

/**
 * The running channel adapters, keyed by adapter id (never silently one per platform). Delivery
 * asks {@link ChannelRegistry.forChat} which adapter posts for an author in a chat.
 */
export class ChannelRegistry {
  private readonly byId = new Map<string, ChannelAdapter>();

  constructor(adapters: readonly ChannelAdapter[]) {
    for (const adapter of adapters) {
      if (this.byId.has(adapter.id)) {
        throw new ConfigError(
          `two channel adapters have the id "${adapter.id}"; each needs its own (e.g. "${adapter.platform}:<agent>")`,
        );
      }
      this.byId.set(adapter.id, adapter);
    }
  }

  all(): ChannelAdapter[] {
    return [...this.byId.values()];
  }

  get(id: string): ChannelAdapter | undefined {
    return this.byId.get(id);
  }

  /** The platform's main adapter: the first one that is not an agent's own connection. */
  main(platform: Platform): ChannelAdapter | undefined {
    return this.all().find((adapter) => adapter.platform === platform && !isAgentIdentityChannel(adapter));
  }

  /**
   * Who posts for `author` in `chat`: the agent's own adapter on the chat's platform when it
   * has one, else the platform's main adapter.
   */
  forChat(chat: ChatRef, author?: Author): ChannelAdapter | undefined {
    if (author?.kind === "agent") {
      const own = this.all().find(
        (adapter) =>
          adapter.platform === chat.platform && isAgentIdentityChannel(adapter) && adapter.agent === author.id,
      );
      if (own) return own;
    }
    return this.main(chat.platform);
  }
}
