import type { Logger } from "../../log/logger.js";

/** How long a post's record is tried before the step gives up (docs/reliability.md). */
export const recordGiveUpMs = 10 * 60_000;

/**
 * Store where a post landed, trying again (0.25 s doubling to 5 s) until the write goes
 * through: the post is on the platform, so a failure here (the database restarting, cut or
 * locked) must not fail the step, whose retry would post it a second time where the platform
 * cannot be asked for it (Telegram). Gives up, throwing the last error, only after
 * `giveUpMs` (an outage beyond minutes), when the retry's double is the lesser harm.
 */
export async function recordUntilStored(
  write: () => Promise<void>,
  logger: Logger,
  what: Record<string, unknown>,
  giveUpMs = recordGiveUpMs,
): Promise<void> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      await write();
      if (attempt > 1)
        logger.info({ ...what, attempts: attempt }, "a post's record is stored after the database came back");
      return;
    } catch (error) {
      const wait = Math.min(250 * 2 ** (attempt - 1), 5_000);
      if (Date.now() - started + wait > giveUpMs) {
        logger.error({ ...what, err: error, attempts: attempt }, "a post's record could not be stored; giving up");
        throw error;
      }
      logger.warn(
        { ...what, err: error, attempt, retryInMs: wait },
        "a post's record could not be stored; trying again (the post is not sent again)",
      );
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
