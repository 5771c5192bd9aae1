import { assertNever } from "../../errors/assert-never.js";
import type { CardPublisher } from "../approvals/route-card.js";
import type { StoredEvent, WorldEvent } from "../events.js";
import type { OutboundRecord } from "../records.js";
import type { WorldContext } from "../world-context.js";
import { postWorldNotice } from "../world-notice.js";
import { deliverCard } from "./cards/deliver-card.js";
import { recordDelivered } from "./delivered.js";
import { deliverMessage } from "./deliver-message.js";
import type { AnswerDrafts } from "./drafts.js";
import { holdFor } from "./hold.js";

/** What delivery publishes through (the outbox), and the answers' drafts it carries. */
export interface DeliveryOutbox extends CardPublisher {
  readonly drafts: AnswerDrafts;
  /** Store and emit an event whose delivery the caller runs at once: no `deliver` step is queued. */
  publishUnqueued(chatKey: string, event: Exclude<WorldEvent, { type: "stream" }>): Promise<StoredEvent>;
}

/**
 * The `deliver` step (docs/architecture.md, "Delivery"): shows a stored event in its chat, once.
 * Delivery is idempotent: a stored record of where the event landed makes a second run a no-op.
 * Messages are `deliver-message.ts`, cards (in their chat and every copy) `cards/`; the hold of
 * a refused platform call is `hold.ts`.
 */
export class Delivery {
  constructor(
    private readonly context: WorldContext,
    private readonly outbox: DeliveryOutbox,
  ) {}

  /**
   * Deliver event `seq`. `rerun` says its job ran before (a later attempt, or taken back from a
   * stopped process): a post may then have reached the platform without its id being stored, so
   * adapters that can look for it do (`PostKey.mayExist`).
   */
  async deliver(seq: number, rerun = false, options: { oneTry?: boolean } = {}): Promise<void> {
    const { store, channels, logger } = this.context;
    // The event and what is recorded of it (and of its message and that message's draft): one read.
    const read = await store.eventToDeliver(seq);
    if (!read) {
      logger.warn({ seq }, "deliver: no such event");
      return;
    }
    const { event, recorded: known } = read;
    const recorded = (refKind: OutboundRecord["refKind"], refId: string) =>
      known.find((record) => record.refKind === refKind && record.refId === refId);
    if (recorded("event", String(seq))) return;
    const chat = event.chat;
    const adapter = channels.forChat(
      chat,
      event.type === "message" || event.type === "system" ? event.message.author : undefined,
    );
    if (!adapter) {
      logger.warn(
        { seq, platform: chat.platform },
        "deliver: no channel adapter for this platform; event stays stored",
      );
      return;
    }
    const held = holdFor(this.context, event, options, (notice) => this.noticeGivenUp(event, notice));
    switch (event.type) {
      case "message":
      case "system": {
        const drafts = this.outbox.drafts;
        const shown = await deliverMessage(this.context, { event, adapter, recorded, rerun, held, drafts });
        if (shown === "posted") return;
        // Nothing (more) was posted for it: the event is delivered.
        return recordDelivered(store, event);
      }
      case "approval-requested":
      case "approval-decided":
      case "approval-updated":
        return deliverCard(this.context, this.outbox, { event, adapter, rerun, held });
      case "tool-calls":
      case "tool-result":
      case "turn-ended":
      case "stream":
        return;
      default:
        assertNever(event, "event");
    }
  }

  /**
   * Say in the chat what a given-up delivery did not show: a world notice
   * (`postWorldNotice`) under an id derived from the event, so a delivery run again (a retry,
   * a restart) never stores or shows it twice. It is stored without a queued `deliver` step and
   * delivered at once, one try, so it shows where the given-up item would have been or not at
   * all: a queued step would hold the chat's later posts again where the platform refuses
   * everything, and show the notice late, out of its place. (A crash before that try leaves it
   * to the start's sweep of lost steps, `recover-lost-steps.ts`.)
   */
  private async noticeGivenUp(event: StoredEvent, text: string | undefined): Promise<void> {
    if (text === undefined) return;
    const id = `undelivered:${event.seq}`;
    let stored: StoredEvent | undefined;
    const unqueued = {
      publish: async (chatKey: string, notice: Exclude<WorldEvent, { type: "stream" }>) => {
        stored = await this.outbox.publishUnqueued(chatKey, notice);
      },
    };
    await postWorldNotice(this.context, unqueued, { chat: event.chat, id, text, level: "error" });
    if (stored) await this.deliver(stored.seq, false, { oneTry: true });
  }
}
