import type { StoredEvent } from "../events.js";
import { givenUpNotice } from "../given-up-notice.js";
import { withoutSlot } from "../queue/step-slots.js";
import type { WorldContext } from "../world-context.js";
import { chatKeyOf } from "./delivered.js";

/** What a held call says when it is given up, and which error ends it at once. */
export interface HoldPolicy {
  /** What the given-up notice says (read then); undefined for none. Default: `givenUpNotice(event)`. */
  notice?: () => string | undefined;
  /** An error after which the call is not tried again (a person who cannot be reached). */
  stopOn?: (error: unknown) => boolean;
}

/** A platform call of one delivery, held (see {@link holdFor}); undefined when given up. */
export type Held = <T>(call: () => Promise<T>, policy?: HoldPolicy) => Promise<T | undefined>;

/**
 * The hold of one delivery's platform calls. A refusal is tried again (backing off) for up to
 * `deliveryHoldMs` (none with `oneTry`) while the chat's later deliveries wait behind it, so
 * answers keep the order of the messages they answer; then it is given up: a log line, the
 * notice saying what was not shown (`giveUp`, with the policy's text; none for a world
 * notice itself), and undefined. The wait is spent without the step's slot.
 */
export function holdFor(
  context: Pick<WorldContext, "logger" | "deliveryHoldMs">,
  event: StoredEvent,
  options: { oneTry?: boolean },
  giveUp: (notice: string | undefined) => Promise<void>,
): Held {
  return async <T>(call: () => Promise<T>, policy: HoldPolicy = {}): Promise<T | undefined> => {
    const holdMs = options.oneTry === true ? 0 : (context.deliveryHoldMs ?? 30_000);
    const notice = policy.notice ?? (() => givenUpNotice(event));
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        const wait = Math.min(250 * 2 ** (attempt - 1), 5_000);
        const log = context.logger.child({ chat: chatKeyOf(event), seq: event.seq, event: event.type });
        if (policy.stopOn?.(error) === true) {
          log.warn({ err: error, attempts: attempt }, "delivery refused for good; not tried again");
          await giveUp(notice());
          return undefined;
        }
        if (Date.now() - started + wait > holdMs) {
          log.error(
            { err: error, attempts: attempt },
            "delivery given up after holding the chat; later messages go on",
          );
          await giveUp(notice());
          return undefined;
        }
        log.warn({ err: error, attempt, retryInMs: wait }, "delivery refused; holding the chat's later deliveries");
        // The platform's retry time is waited out without the step's slot.
        await withoutSlot(() => new Promise((resolve) => setTimeout(resolve, wait)));
      }
    }
  };
}
