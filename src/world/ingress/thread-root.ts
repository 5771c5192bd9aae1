import { type ChatRef, chatKey } from "../chat-ref.js";
import type { ThreadRoot } from "../inbound.js";
import { inboundMessageId } from "./inbound-message-id.js";
import type { Author } from "../message.js";
import type { WorldContext } from "../world-context.js";

/**
 * Store the message a thread hangs off as the first message of the thread's chat (once, never
 * routed), so that the first turn in the thread sees what it is about. A root that is one of
 * our own posts keeps its agent as author, found through where the parent chat's post landed.
 */
export async function storeThreadRoot(context: WorldContext, chat: ChatRef, root: ThreadRoot): Promise<void> {
  const key = chatKey(chat);
  const id = inboundMessageId(key, root.platformMessageId);
  if (await context.store.getMessage(id)) return;
  const author = (root.ownPost === true ? await ownAuthor(context, chat, root) : undefined) ?? {
    kind: root.sender.isBot ? "bot" : "human",
    id: root.sender.id,
    name: root.sender.displayName,
    ...(root.sender.handle === undefined ? {} : { handle: root.sender.handle }),
  };
  try {
    await context.store.addMessage({
      id,
      chatKey: key,
      author,
      text: root.text,
      platformMessageId: root.platformMessageId,
      raw: { threadRoot: true },
    });
  } catch (error) {
    // Two messages of a new thread arriving at once: the other one stored the root.
    if (!(await context.store.getMessage(id))) throw error;
  }
}

async function ownAuthor(context: WorldContext, chat: ChatRef, root: ThreadRoot): Promise<Author | undefined> {
  const { thread: _thread, ...parent } = chat;
  const parentKey = chatKey(parent);
  const outbound = await context.store.findOutboundByPlatformId(parentKey, root.platformMessageId);
  if (outbound?.refKind !== "message") return undefined;
  return (await context.store.getMessage(outbound.refId))?.author;
}
