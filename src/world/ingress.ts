import type { MessageRecord } from "./records.js";
import { handleApprovalClick } from "./approval-clicks.js";
import { storeThreadRoot } from "./thread-root.js";
import { chatKey } from "./chat-ref.js";
import type { ApprovalClick, ClickResult, InboundMessage, InboundSink, IngressResult } from "./inbound.js";
import { inboundMessageId } from "./inbound-message-id.js";
import { jobKey } from "./jobs.js";
import { worldAuthor } from "./message.js";
import type { Outbox } from "./outbox.js";
import type { WorldContext } from "./world-context.js";

/** Longest message text routed to agents; longer ones are stored and answered with a notice. */
export const maxInboundTextLength = 32_000;

/** A human message of exactly this text resets the chat's session (session approvals end). */
export const resetCommand = "/reset";

/** Why a stored inbound message starts no turn, if it does not. Decided from the message alone. */
export function notRoutedReason(
  isBot: boolean,
  text: string,
  allowBots: boolean,
): "bot" | "reset" | "too-long" | undefined {
  if (isBot && !allowBots) return "bot";
  if (!isBot && text.trim() === resetCommand) return "reset";
  if (text.length > maxInboundTextLength) return "too-long";
  return undefined;
}

export { inboundMessageId } from "./inbound-message-id.js";

/**
 * Where channels hand in messages and clicks. Dedupe on the platform's id (the message id is
 * derived from it, unique in the database), persist, emit, then queue the routing step.
 */
export class Ingress implements InboundSink {
  constructor(
    private readonly context: WorldContext,
    private readonly outbox: Outbox,
  ) {}

  async message(inbound: InboundMessage): Promise<IngressResult> {
    const { store, logger, worlds, queue } = this.context;
    const key = chatKey(inbound.chat);
    const log = logger.child({ platform: inbound.chat.platform, chat: key });
    const world = worlds.worldFor(inbound.chat);
    if (!world) {
      log.info({ messageId: inbound.platformMessageId }, "message from a chat bound to no world ignored");
      return { status: "unbound", reason: "this chat is not bound to a world" };
    }
    if (inbound.ownEcho === true) {
      // Our own post (bot, webhook, persona) coming back: it is stored already as what we sent.
      log.debug({ messageId: inbound.platformMessageId }, "own post echoed back; ignored");
      return { status: "ignored", reason: "the service's own message" };
    }
    const id = inboundMessageId(key, inbound.platformMessageId);
    const routePayload = { kind: "route", messageId: id } as const;
    if (await store.getMessage(id)) {
      log.info({ messageId: inbound.platformMessageId }, "duplicate inbound message dropped");
      // Routing is idempotent: queue it again in case the first delivery died before queueing
      // (only for a message that is routed at all).
      if (notRoutedReason(inbound.sender.isBot, inbound.text, world.allowBots) === undefined) {
        await queue.add({ queue: key, key: jobKey(routePayload), payload: routePayload });
      }
      return { status: "duplicate" };
    }
    await store.ensureChat(key, world.name, inbound.chat.platform);
    if (inbound.threadRoot !== undefined && inbound.chat.thread !== undefined) {
      await storeThreadRoot(this.context, inbound.chat, inbound.threadRoot);
    }
    const human = !inbound.sender.isBot;
    let message: MessageRecord;
    try {
      message = await store.addMessage({
        id,
        chatKey: key,
        author: {
          kind: human ? "human" : "bot",
          id: inbound.sender.id,
          name: inbound.sender.displayName,
          ...(inbound.sender.handle === undefined ? {} : { handle: inbound.sender.handle }),
        },
        text: inbound.text,
        platformMessageId: inbound.platformMessageId,
        ...(inbound.replyTo === undefined ? {} : { replyToId: inbound.replyTo }),
        raw: inbound.raw,
        createdAt: inbound.receivedAt,
      });
    } catch (error) {
      if (await store.getMessage(id)) {
        log.info({ messageId: inbound.platformMessageId }, "duplicate inbound message dropped (concurrent delivery)");
        return { status: "duplicate" };
      }
      throw error;
    }
    if (human) await store.setAgentTurns(key, 0);
    await this.outbox.publish(key, { type: "message", chat: inbound.chat, message });

    if (inbound.sender.isBot && !world.allowBots) {
      log.debug({ messageId: inbound.platformMessageId }, "bot message stored, not routed");
      return { status: "ignored", reason: "messages from bots do not start turns" };
    }
    if (human && inbound.text.trim() === resetCommand) {
      const epoch = await store.resetSession(key);
      log.info({ epoch }, "chat reset: session approvals cleared");
      await this.postNotice(inbound, `${id}:reset`, "Chat reset: approvals given for this session no longer apply.");
      return { status: "ignored", reason: "chat reset" };
    }
    if (inbound.text.length > maxInboundTextLength) {
      log.warn({ length: inbound.text.length }, "oversized message stored, not routed");
      await this.postNotice(
        inbound,
        `${id}:too-long`,
        `That message is too long for the agents (${inbound.text.length} characters; the limit is ${maxInboundTextLength}). It was kept but not answered.`,
      );
      return { status: "ignored", reason: "message too long" };
    }
    await queue.add({ queue: key, key: jobKey(routePayload), payload: routePayload });
    return { status: "accepted", messageId: id };
  }

  private async postNotice(inbound: InboundMessage, id: string, text: string): Promise<void> {
    const key = chatKey(inbound.chat);
    const notice = await this.context.store.addMessage({ id, chatKey: key, author: worldAuthor, text });
    await this.outbox.publish(key, { type: "system", chat: inbound.chat, level: "notice", message: notice });
  }

  click(click: ApprovalClick): Promise<ClickResult> {
    return handleApprovalClick(this.context, click);
  }
}
