import { type MessageFile, type MessageRecord, omittedRaw } from "../records.js";
import { withTranscripts } from "../files/transcripts.js";
import { settleFiles } from "../files/settle-files.js";
import { accessChannelFor } from "../access/access-channel.js";
import { handleApprovalClick, type TurnInterrupts } from "../turn/index.js";
import { CommandIngress } from "../commands/command-ingress.js";
import { resetChat } from "../commands/reset-chat.js";
import { storeThreadRoot } from "./thread-root.js";
import { chatKey } from "../chat-ref.js";
import { mayReset, resetRefusedText } from "../commands/reset-rights.js";
import { parseChatCommand } from "../commands/parse-chat-command.js";
import type {
  ApprovalClick,
  ClickResult,
  CommandResult,
  InboundCommand,
  InboundMessage,
  InboundSink,
  IngressResult,
} from "../inbound.js";
import { inboundMessageId } from "./inbound-message-id.js";
import { chatJob } from "../jobs.js";
import { messageRateExceeded } from "../limits/message-rate.js";
import { mayTalk, notMemberText } from "../access/membership.js";
import type { Outbox } from "../outbox.js";
import { noticeOnce, periodBucket, postWorldNotice } from "../world-notice.js";
import { rolesLookup } from "../access/user-roles.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";

/** Longest message text routed to agents; longer ones are stored and answered with a notice. */
const maxInboundTextLength = 32_000;

/**
 * `/reset`, or `/reset@bot` (Telegram's form in groups; a `/reset@otherbot` never gets here: it
 * is left alone before it is stored).
 */
function isResetText(text: string): boolean {
  return /^\/reset(@[A-Za-z0-9_]+)?$/i.test(text.trim());
}

/** Why a stored inbound message starts no turn, if it does not. Decided from the message alone. */
export function notRoutedReason(
  isBot: boolean,
  text: string,
  allowBots: boolean,
): "bot" | "reset" | "too-long" | undefined {
  if (isBot && !allowBots) return "bot";
  if (!isBot && isResetText(text)) return "reset";
  if (text.length > maxInboundTextLength) return "too-long";
  return undefined;
}

export { inboundMessageId } from "./inbound-message-id.js";

/**
 * Where channels hand in messages and clicks. Dedupe on the platform's id (the message id is
 * derived from it, unique in the database), persist, emit, then queue the routing step.
 */
export class Ingress implements InboundSink {
  private readonly commands: CommandIngress;

  constructor(
    private readonly context: WorldContext,
    private readonly outbox: Outbox,
    interrupts: TurnInterrupts,
  ) {
    this.commands = new CommandIngress(context, outbox, interrupts);
  }

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
    const command = inbound.sender.isBot ? undefined : parseChatCommand(inbound.text, inbound.botNames ?? []);
    if (command && !(command.kind === "command" && command.name === "reset")) {
      return this.commands.typed(inbound, world, command);
    }
    const id = inboundMessageId(key, inbound.platformMessageId);
    const routePayload = { kind: "route", messageId: id } as const;
    const duplicate = async (): Promise<IngressResult> => {
      if (!inbound.sender.isBot && isResetText(inbound.text) && !(await store.getMessage(`${id}:reset`))) {
        // A /reset whose first delivery was cut before its notice (a crash): finish it now. A
        // second new session epoch is harmless, and the notice has a fixed id, so it shows once.
        log.info({ messageId: inbound.platformMessageId }, "reset delivered again before it finished; finishing it");
        return this.afterStored(inbound, world, id);
      }
      log.info({ messageId: inbound.platformMessageId }, "duplicate inbound message dropped");
      // Routing is idempotent: queue it again in case the first delivery died before queueing
      // (only for a message that is routed at all).
      if (notRoutedReason(inbound.sender.isBot, inbound.text, world.allowBots) === undefined) {
        await queue.add(chatJob(key, routePayload));
      }
      return { status: "duplicate" };
    };
    // A chat's binding never changes: a chat known here needs no statement.
    if ((await store.chatWorld(key)) === undefined) await store.ensureChat(key, world.name, inbound.chat.platform);
    if (inbound.threadRoot !== undefined && inbound.chat.thread !== undefined) {
      await storeThreadRoot(this.context, inbound.chat, inbound.threadRoot);
    }
    const human = !inbound.sender.isBot;
    // A non-member's message starts nothing: it is kept without the platform's payload.
    const member = human ? await this.isMember(inbound) : true;
    const attachments = inbound.attachments ?? [];
    let files: MessageFile[] = [];
    // Only a message that may start a turn has its files fetched: a stranger's uploads cost nothing.
    const routable = member && (human || world.allowBots);
    if (attachments.length > 0 && routable && this.context.files !== undefined) {
      // Downloads are slow: a second delivery of a stored message fetches nothing.
      if (await store.getMessage(id)) return duplicate();
      // Nor does a flood: past the person's rate, routing starts no turn (and says so).
      if (
        human &&
        (await messageRateExceeded(store, world, inbound.chat.platform, inbound.sender.id, inbound.receivedAt, 1))
      ) {
        log.info({ user: inbound.sender.id }, "message rate limit reached; its files are not fetched");
      } else {
        files = await this.context.files.collect(attachments, world, { chatKey: key, person: inbound.sender.id });
      }
    }
    let message: MessageRecord;
    try {
      message = await store.addMessage(
        {
          id,
          chatKey: key,
          author: {
            kind: human ? "human" : "bot",
            id: inbound.sender.id,
            name: inbound.sender.displayName,
            ...(inbound.sender.handle === undefined ? {} : { handle: inbound.sender.handle }),
          },
          // A voice note's words are its text (files.transcribe): routing and the models read them.
          text: withTranscripts(inbound.text, files, maxInboundTextLength),
          platformMessageId: inbound.platformMessageId,
          ...(inbound.replyTo === undefined ? {} : { replyToId: inbound.replyTo }),
          raw: member ? inbound.raw : omittedRaw("non-member"),
          createdAt: inbound.receivedAt,
          ...(files.length === 0 ? {} : { files }),
        },
        { resetAgentTurns: human },
      );
    } catch (error) {
      // The message id derives from the platform's: a second delivery (now or long ago) collides.
      if (await store.getMessage(id)) return duplicate();
      throw error;
    }
    await this.outbox.publish(key, { type: "message", chat: inbound.chat, message });
    if (files.length > 0) await settleFiles(this.context, this.outbox, world, inbound.chat, id, files);
    return this.afterStored(inbound, world, id, member);
  }

  /** What a stored inbound message leads to: nothing (bots, non-members), a reset, a notice or its routing. */
  private async afterStored(
    inbound: InboundMessage,
    world: WorldSettings,
    id: string,
    member?: boolean,
  ): Promise<IngressResult> {
    const { logger, queue } = this.context;
    const key = chatKey(inbound.chat);
    const log = logger.child({ platform: inbound.chat.platform, chat: key });
    const human = !inbound.sender.isBot;
    if (inbound.sender.isBot && !world.allowBots) {
      log.debug({ messageId: inbound.platformMessageId }, "bot message stored, not routed");
      return { status: "ignored", reason: "messages from bots do not start turns" };
    }
    if (human && !(member ?? (await this.isMember(inbound)))) {
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
    if (human && isResetText(inbound.text)) {
      if (!(await mayReset(this.context, world, inbound.chat, key, inbound.sender))) {
        log.info({ user: inbound.sender.id }, "reset refused: pending approvals are not theirs to close");
        await noticeOnce(
          this.context,
          this.outbox,
          inbound.chat,
          inbound.sender.id,
          `reset-refused:${id}`,
          `${inbound.sender.displayName}: ${resetRefusedText}`,
        );
        return { status: "ignored", reason: "reset refused" };
      }
      await resetChat(this.context, this.outbox, inbound.chat, `${id}:reset`, inbound.sender);
      return { status: "ignored", reason: "chat reset" };
    }
    if (inbound.text.length > maxInboundTextLength) {
      log.warn({ length: inbound.text.length }, "oversized message stored, not routed");
      await postWorldNotice(this.context, this.outbox, {
        chat: inbound.chat,
        id: `${id}:too-long`,
        text: `That message is too long for the agents (${inbound.text.length} characters; the limit is ${maxInboundTextLength}). It was kept but not answered.`,
      });
      return { status: "ignored", reason: "message too long" };
    }
    const routePayload = { kind: "route", messageId: id } as const;
    await queue.add(chatJob(key, routePayload));
    return { status: "accepted", messageId: id };
  }

  private async isMember(inbound: InboundMessage): Promise<boolean> {
    const world = this.context.worlds.worldFor(inbound.chat);
    if (!world) return false;
    return mayTalk(
      world,
      accessChannelFor(this.context.channels, inbound.chat.platform),
      inbound.sender,
      rolesLookup(this.context, inbound.chat, inbound.sender),
    );
  }

  /** A command from a platform structure (a Stop button, a slash command): answered to the sender. */
  command(input: InboundCommand): Promise<CommandResult> {
    return this.commands.structured(input);
  }

  click(click: ApprovalClick): Promise<ClickResult> {
    return handleApprovalClick(this.context, click, this.outbox);
  }
}
