import { assertNever } from "../errors/assert-never.js";
import type { AnswerDrafts } from "./delivery/drafts.js";
import type { StoredEvent, WorldEvent } from "./events.js";
import { jobKey } from "./jobs.js";
import type { WorldContext } from "./world-context.js";

export type EventListener = (event: StoredEvent | Extract<WorldEvent, { type: "stream" }>) => void;

/**
 * Persist → emit → enqueue. Every world event is stored first, then handed to in-process
 * listeners, then (when a chat should see it) a `deliver` step is queued in the chat's queue;
 * that step is delivery's (`src/world/delivery/deliver.ts`, `Delivery.deliver`).
 */
export class Outbox {
  private readonly listeners = new Set<EventListener>();

  /**
   * @param drafts The answers' drafts (held streams and draft records), owned by delivery and
   *   carried here for `src/agents`' answer handle (`openAnswer`), which is given the outbox.
   */
  constructor(
    private readonly context: Pick<WorldContext, "store" | "queue" | "logger">,
    readonly drafts: AnswerDrafts,
  ) {}

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Store the event, tell listeners, and queue its delivery. */
  async publish(chatKey: string, event: Exclude<WorldEvent, { type: "stream" }>): Promise<StoredEvent> {
    const stored = await this.context.store.appendEvent(chatKey, event);
    await this.published(chatKey, stored);
    return stored;
  }

  /** An event the store appended with the write that caused it (`Store.endSettledTurn`): emitted, and queued to deliver. */
  async published(chatKey: string, stored: StoredEvent): Promise<void> {
    this.emit(stored);
    if (shouldDeliver(stored)) {
      const payload = { kind: "deliver", seq: stored.seq } as const;
      await this.context.queue.add({ queue: chatKey, key: jobKey(payload), payload });
    }
  }

  /** Store the event and tell listeners; no `deliver` step is queued (the caller delivers it at once). */
  async publishUnqueued(chatKey: string, event: Exclude<WorldEvent, { type: "stream" }>): Promise<StoredEvent> {
    const stored = await this.context.store.appendEvent(chatKey, event);
    this.emit(stored);
    return stored;
  }

  /** Transient stream events: emitted, never stored. */
  emitStream(event: Extract<WorldEvent, { type: "stream" }>): void {
    this.emit(event);
  }

  private emit(event: StoredEvent | Extract<WorldEvent, { type: "stream" }>): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.context.logger.error({ err: error }, "event listener failed");
      }
    }
  }
}

/** Whether a chat should see this event (posted, or a card shown or updated). */
export function shouldDeliver(event: WorldEvent): boolean {
  switch (event.type) {
    case "message":
      return event.message.author.kind === "agent";
    case "system":
    case "approval-requested":
    case "approval-decided":
    case "approval-updated":
      return true;
    case "tool-calls":
    case "tool-result":
    case "turn-ended":
    case "stream":
      return false;
    default:
      return assertNever(event, "event");
  }
}
