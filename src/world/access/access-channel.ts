import type { ChannelCapabilities } from "../channel/channel-capabilities.js";
import type { ChannelRegistry } from "../channel/channel-registry.js";
import type { Platform } from "../chat-ref.js";

/**
 * The channel a person acts through, as access checks see it (a `ChannelAdapter` is one): its
 * platform, whose approver and member lists apply, and whether it tells people apart. One that
 * does not (`identifiesClickers: false`, the console's local user) has no lists: its user may do all.
 */
export interface AccessChannel {
  platform: Platform;
  capabilities: Pick<ChannelCapabilities, "identifiesClickers">;
}

/** The platform's main adapter; with none running, the platform's lists apply. */
export function accessChannelFor(channels: Pick<ChannelRegistry, "main">, platform: Platform): AccessChannel {
  return channels.main(platform) ?? { platform, capabilities: { identifiesClickers: true } };
}
