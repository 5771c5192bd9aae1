import { chatKey } from "../chat-ref.js";
import type { WorldEvent } from "../events.js";
import type { Store } from "../store.js";

/** The chat an event is delivered in (its record's `chatKey`). */
export function chatKeyOf(event: WorldEvent): string {
  if (event.type === "message" || event.type === "system") return event.message.chatKey;
  return chatKey(event.chat);
}

/** Record event `seq` delivered: nothing (more) to post for it (`ids`: where it landed, when anywhere). */
export function recordDelivered(
  store: Pick<Store, "recordOutbound">,
  event: WorldEvent & { seq: number },
  ids: string[] = [],
): Promise<void> {
  return store.recordOutbound({
    chatKey: chatKeyOf(event),
    refKind: "event",
    refId: String(event.seq),
    platformMessageIds: ids,
  });
}
