import { createHash } from "node:crypto";
import type { MessageRecord } from "../storage/records.js";
import { handleApprovalClick } from "./approval-clicks.js";
import { chatKey } from "./chat-ref.js";
import type { ApprovalClick, ClickResult, InboundMessage, InboundSink, IngressResult } from "./inbound.js";
import { jobKey } from "./jobs.js";
import { worldAuthor } from "./message.js";
import { mayTalk, notMemberText } from "./membership.js";
import type { Outbox } from "./outbox.js";
import { noticeOnce, periodBucket } from "./sender-notice.js";
import { rolesLookup } from "./user-roles.js";
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

/** The id of an inbound message is derived from the platform's id: a second delivery collides. */
export function inboundMessageId(key: string, platformMessageId: string): string {
  return `in-${createHash("sha256").update(`${key}\u0000${platformMessageId}`).digest("hex").slice(0, 32)}`;
}

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
    if (human && !(await this.isMember(inbound))) {
      log.info({ user: inbound.sender.id }, "message from a non-member stored, not routed");
      const hour = periodBucket(inbound.receivedAt, 3_600_000);
      await noticeOnce(
        this.context,
        this.outbox,
        inbound.chat,
        inbound.sender.id,
        `not-member:${inbound.sender.id}:${hour}`,
        notMemberText,
      );
      return { status: "ignored", reason: "sender is not a member" };
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

  private async isMember(inbound: InboundMessage): Promise<boolean> {
    const world = this.context.worlds.worldFor(inbound.chat);
    if (!world) return false;
    const adapter = this.context.channels.get(inbound.chat.platform);
    return mayTalk(world, inbound.chat.platform, inbound.sender, rolesLookup(adapter, inbound.chat, inbound.sender));
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
