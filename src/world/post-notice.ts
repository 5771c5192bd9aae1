import type { MessageRecord } from "./records.js";
import { type ChatRef, chatKey } from "./chat-ref.js";
import { worldAuthor } from "./message.js";
import type { Outbox } from "./outbox.js";
import type { WorldContext } from "./world-context.js";

/**
 * Stores and shows a notice from the world under a fixed id; false (nothing shown) when that
 * id exists already, so an action run again after a crash never shows its answer twice.
 */
export async function postNotice(
  context: Pick<WorldContext, "store">,
  outbox: Outbox,
  chat: ChatRef,
  id: string,
  text: string,
): Promise<boolean> {
  const { store } = context;
  const key = chatKey(chat);
  if (await store.getMessage(id)) return false;
  let notice: MessageRecord;
  try {
    notice = await store.addMessage({ id, chatKey: key, author: worldAuthor, text });
  } catch (error) {
    if (await store.getMessage(id)) return false; // a concurrent delivery stored it first
    throw error;
  }
  await outbox.publish(key, { type: "system", chat, level: "notice", message: notice });
  return true;
}
