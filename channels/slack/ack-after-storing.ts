import type { App } from "@slack/bolt";

/**
 * Slack sends a payload again when it is not answered in about 3 s. By 2.5 s an event (a
 * message) the world has not stored is refused, so that Slack sends it again (the world dedupes
 * it when it was stored after all); any other payload nobody acked by then is answered anyway.
 */
const unackedAnswerMs = 2500;

/** One payload from Slack, as either receiver got it; `isEvent`: a message (events API). */
type SlackDelivery = {
  body: Record<string, unknown>;
  isEvent: boolean;
  retryNum: number | undefined;
  retryReason: string | undefined;
};

/** How a receiver answers Slack. */
export interface SlackAnswer {
  /** Answer Slack with the listener's payload, if any (called at most once). */
  ack(payload?: unknown): Promise<void>;
  /** Nobody acked a payload that is not an event within 2.5 s (the answer follows at once). */
  late(): void;
  /**
   * An event not stored within 2.5 s (the database away or slow): answer so that Slack sends it
   * again (HTTP: a 503; Socket Mode: no ack). Called at most once, instead of `ack`.
   */
  refuse(): void;
  /** Processing failed; `acknowledged`: Slack has its answer already. */
  failed(error: unknown, acknowledged: boolean): void;
}

/**
 * Slack's ack-after-storing policy, for both receivers. Bolt acks an event before its
 * listeners run, so a process killed in between loses the message; here an event is answered
 * only once Bolt's processing (the world storing the message) is done, other payloads (button
 * presses, slash commands) when their listener acks, and those after 2.5 s at the latest; an
 * event still not stored by then is refused, never confirmed (docs/reliability.md). A payload
 * whose processing fails before the answer is not acknowledged (the HTTP receiver answers
 * 500), so that Slack delivers it again (the world dedupes by message id).
 */
export function ackAfterStoring(app: App, delivery: SlackDelivery, answer: SlackAnswer): Promise<void> {
  let acknowledged = false;
  const acknowledge = async (payload?: unknown): Promise<void> => {
    if (acknowledged) return;
    acknowledged = true;
    clearTimeout(timer);
    await answer.ack(payload);
  };
  let refused = false;
  const timer = setTimeout(() => {
    if (delivery.isEvent) {
      refused = true;
      acknowledged = true;
      answer.refuse();
      return;
    }
    answer.late();
    void acknowledge();
  }, unackedAnswerMs);
  return app
    .processEvent({
      body: delivery.body,
      ack: async (payload?: unknown) => {
        if (!delivery.isEvent) await acknowledge(payload);
      },
      ...(delivery.retryNum === undefined ? {} : { retryNum: delivery.retryNum }),
      ...(delivery.retryReason === undefined ? {} : { retryReason: delivery.retryReason }),
    })
    .then(() => acknowledge())
    .catch((error: unknown) => {
      clearTimeout(timer);
      // Refused already: Slack sends it again, and has its answer.
      answer.failed(error, acknowledged || refused);
    });
}
