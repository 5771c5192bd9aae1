import type { Logger } from "../../src/log/logger.js";
import type { InboundSink, ChannelClock } from "../../src/world/channel-adapter.js";

/** Attempts to hand one gateway message to the world before it is logged and dropped. */
const deliveryAttempts = 3;

/** Hands one parsed gateway message to the world, retrying a failing world a few times. */
export async function deliverToWorld(
  sink: InboundSink,
  message: Parameters<InboundSink["message"]>[0],
  logger: Logger,
  clock: ChannelClock,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await sink.message(message);
      logger.debug(
        { chat: message.chat.channel, messageId: message.platformMessageId, status: result.status },
        "discord message handed in",
      );
      return;
    } catch (error) {
      if (attempt >= deliveryAttempts) {
        logger.error(
          { err: error, messageId: message.platformMessageId },
          "discord message not handled by the world; skipped",
        );
        return;
      }
      await clock.sleep(250 * attempt);
    }
  }
}
