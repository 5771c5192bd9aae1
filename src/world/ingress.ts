import type { MessageRecord } from "./records.js";
import { accessChannelFor } from "./access-channel.js";
import { handleApprovalClick } from "./approval-clicks.js";
import { storeThreadRoot } from "./thread-root.js";
import { chatKey, parseChatKey } from "./chat-ref.js";
import { closePendingApprovals } from "./close-pending-approvals.js";
import { mayReset, resetRefusedText } from "./commands/reset-rights.js";
import { isChatCommandName } from "./commands/chat-commands.js";
import { type ParsedChatCommand, parseChatCommand } from "./commands/parse-chat-command.js";
import { type ChatCommandAnswer, type ChatCommandRequest, runChatCommand } from "./commands/run-chat-command.js";
import type {
  ApprovalClick,
  ClickResult,
  CommandResult,
  InboundCommand,
  InboundMessage,
  InboundSink,
  IngressResult,
  Sender,
} from "./inbound.js";
import { inboundMessageId } from "./inbound-message-id.js";
import { jobKey } from "./jobs.js";
import { KeyedSerializer } from "./keyed-serializer.js";
import { worldAuthor } from "./message.js";
import { mayTalk, notMemberText } from "./membership.js";
import type { Outbox } from "./outbox.js";
import { canReplyPrivately } from "./channel-optional.js";
import { noticeOnce, periodBucket } from "./sender-notice.js";
import type { TurnInterrupts } from "./turn-interrupts.js";
import { rolesLookup } from "./user-roles.js";
import type { WorldContext } from "./world-context.js";
import type { WorldSettings } from "./world-settings.js";

/** Longest message text routed to agents; longer ones are stored and answered with a notice. */
export const maxInboundTextLength = 32_000;

/** A human message of exactly this text resets the chat's session (session approvals end). */
export const resetCommand = "/reset";

/**
 * `/reset`, or `/reset@bot` (Telegram's form in groups; a `/reset@otherbot` never gets here: it
 * is left alone before it is stored).
 */
export function isResetText(text: string): boolean {
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
  /** Deliveries of one command in this process run one after another (see `typedCommand`). */
  private readonly serializer = new KeyedSerializer();

  constructor(
    private readonly context: WorldContext,
    private readonly outbox: Outbox,
    private readonly interrupts: TurnInterrupts,
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
    const command = inbound.sender.isBot ? undefined : parseChatCommand(inbound.text, inbound.botNames ?? []);
    if (command && !(command.kind === "command" && command.name === "reset")) {
      return this.typedCommand(inbound, world, command);
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
        await queue.add({ queue: key, key: jobKey(routePayload), payload: routePayload });
      }
      return { status: "duplicate" };
    };
    // A chat's binding never changes: a chat known here needs no statement.
    if ((await store.chatWorld(key)) === undefined) await store.ensureChat(key, world.name, inbound.chat.platform);
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
      // The message id derives from the platform's: a second delivery (now or long ago) collides.
      if (await store.getMessage(id)) return duplicate();
      throw error;
    }
    if (human) await store.setAgentTurns(key, 0);
    await this.outbox.publish(key, { type: "message", chat: inbound.chat, message });
    return this.afterStored(inbound, world, id);
  }

  /** What a stored inbound message leads to: nothing (bots, non-members), a reset, a notice or its routing. */
  private async afterStored(inbound: InboundMessage, world: WorldSettings, id: string): Promise<IngressResult> {
    const { logger, queue } = this.context;
    const key = chatKey(inbound.chat);
    const log = logger.child({ platform: inbound.chat.platform, chat: key });
    const human = !inbound.sender.isBot;
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
      await this.resetChat(inbound.chat, `${id}:reset`, inbound.sender);
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
    const routePayload = { kind: "route", messageId: id } as const;
    await queue.add({ queue: key, key: jobKey(routePayload), payload: routePayload });
    return { status: "accepted", messageId: id };
  }

  private async isMember(inbound: InboundMessage): Promise<boolean> {
    const world = this.context.worlds.worldFor(inbound.chat);
    if (!world) return false;
    const adapter = this.context.channels.main(inbound.chat.platform);
    return mayTalk(
      world,
      accessChannelFor(this.context.channels, inbound.chat.platform),
      inbound.sender,
      rolesLookup(adapter, inbound.chat, inbound.sender),
    );
  }

  /**
   * Stores and shows a notice under a fixed id; false (nothing shown) when that id exists
   * already, so an action run again after a crash never shows its answer twice.
   */
  private async postNotice(inbound: Pick<InboundMessage, "chat">, id: string, text: string): Promise<boolean> {
    const { store } = this.context;
    const key = chatKey(inbound.chat);
    if (await store.getMessage(id)) return false;
    let notice: MessageRecord;
    try {
      notice = await store.addMessage({ id, chatKey: key, author: worldAuthor, text });
    } catch (error) {
      if (await store.getMessage(id)) return false; // a concurrent delivery stored it first
      throw error;
    }
    await this.outbox.publish(key, { type: "system", chat: inbound.chat, level: "notice", message: notice });
    return true;
  }

  /**
   * A command typed as a message of its own. It is not a message of the conversation: it is
   * not stored as one and never reaches the agents; it runs here, not behind the chat's queue.
   */
  private async typedCommand(
    inbound: InboundMessage,
    world: WorldSettings,
    command: ParsedChatCommand,
  ): Promise<IngressResult> {
    const { logger } = this.context;
    const key = chatKey(inbound.chat);
    const log = logger.child({ platform: inbound.chat.platform, chat: key, user: inbound.sender.id });
    if (command.kind === "other-bot") {
      log.info({ command: command.name, bot: command.bot }, "command for another bot ignored");
      return { status: "ignored", reason: `a command for @${command.bot}` };
    }
    // The "handled" mark is read before acting and claimed only after: a delivery cut by a crash
    // before the mark acts when delivered again; one after it is dropped. Deliveries of one
    // command in this process run one after another. Acting again (a crash between the answer
    // and the mark, or two processes given the same delivery at once) is harmless, as a second
    // /stop finds its turns ended, and shows one answer, as the answer's id is fixed.
    const handled = handledKey(key, inbound.platformMessageId);
    return this.serializer.run(handled, () => this.typedCommandOnce(inbound, world, command.name, command.args));
  }

  private async typedCommandOnce(
    inbound: InboundMessage,
    world: WorldSettings,
    name: ChatCommandRequest["name"] | "reset",
    args: string[],
  ): Promise<IngressResult> {
    const { store, logger } = this.context;
    const key = chatKey(inbound.chat);
    const log = logger.child({ platform: inbound.chat.platform, chat: key, user: inbound.sender.id });
    const handled = handledKey(key, inbound.platformMessageId);
    if (await store.hasInboundKey(handled)) {
      log.info({ messageId: inbound.platformMessageId }, "duplicate command delivery dropped");
      return { status: "duplicate" };
    }
    if (name === "reset") return { status: "ignored", reason: "chat reset" }; // handled as a message
    await store.ensureChat(key, world.name, inbound.chat.platform);
    const answer = await this.runCommand(world, inbound, name, args);
    const noticeId = `${inboundMessageId(key, inbound.platformMessageId)}:command`;
    const shown =
      answer.status === "refused"
        ? await this.refusePrivately(inbound, noticeId, answer.text)
        : await this.postNotice(inbound, noticeId, answer.text);
    await store.claimInboundKey(handled);
    if (!shown) {
      log.info({ messageId: inbound.platformMessageId }, "command delivered again; its answer was shown already");
      return { status: "duplicate" };
    }
    return { status: "ignored", reason: `chat command /${name}` };
  }

  /** A command from a platform structure (a Stop button, a slash command): answered to the sender. */
  async command(input: InboundCommand): Promise<CommandResult> {
    const { store, logger, worlds } = this.context;
    const key = chatKey(input.chat);
    const log = logger.child({ platform: input.chat.platform, chat: key, user: input.sender.id });
    const world = worlds.worldFor(input.chat);
    if (!world) {
      log.info({ command: input.name }, "command from a chat bound to no world refused");
      return { status: "unknown", text: "This chat is not bound to a world." };
    }
    const name = input.name.toLowerCase();
    if (!isChatCommandName(name)) {
      log.info({ command: input.name }, "unknown command refused");
      return { status: "unknown", text: `There is no command /${input.name}. Try /help.` };
    }
    // Read before acting, claimed after (see `typedCommand`): a delivery cut by a crash acts again.
    if (input.platformEventId === undefined) return this.structuredCommand(world, input, name);
    const handled = handledKey(key, input.platformEventId);
    return this.serializer.run(handled, async () => {
      if (await store.hasInboundKey(handled)) {
        log.info({ event: input.platformEventId }, "duplicate command delivery dropped");
        return { status: "done", text: "This was already handled." };
      }
      const answer = await this.structuredCommand(world, input, name);
      await store.claimInboundKey(handled);
      return answer;
    });
  }

  private async structuredCommand(
    world: WorldSettings,
    input: InboundCommand,
    name: ChatCommandRequest["name"] | "reset",
  ): Promise<CommandResult> {
    const { store, logger } = this.context;
    const key = chatKey(input.chat);
    const log = logger.child({ platform: input.chat.platform, chat: key, user: input.sender.id });
    await store.ensureChat(key, world.name, input.chat.platform);
    if (name === "reset") {
      const adapter = this.context.channels.main(input.chat.platform);
      if (
        !(await mayTalk(
          world,
          accessChannelFor(this.context.channels, input.chat.platform),
          input.sender,
          rolesLookup(adapter, input.chat, input.sender),
        ))
      ) {
        log.info({ command: name, user: input.sender.id }, "command from a non-member refused");
        return { status: "refused", text: notMemberCommandText };
      }
      // A command that cannot name a thread (Slack's) resets the channel and every thread chat in it.
      const chats = input.wholeChannel ? await this.channelChats(input.chat) : [input.chat];
      for (const chat of chats) {
        if (!(await mayReset(this.context, world, chat, chatKey(chat), input.sender))) {
          log.info({ user: input.sender.id }, "reset refused: pending approvals are not theirs to close");
          return { status: "refused", text: resetRefusedText };
        }
      }
      const event = input.platformEventId ?? String(Date.now());
      for (const chat of chats) {
        await store.ensureChat(chatKey(chat), world.name, chat.platform);
        await this.resetChat(chat, `command:${chatKey(chat)}:${event}:reset`, input.sender);
      }
      return {
        status: "done",
        text:
          chats.length > 1
            ? `Reset this channel and its ${chats.length - 1} thread${chats.length === 2 ? "" : "s"}.`
            : "Chat reset.",
      };
    }
    return this.runCommand(world, input, name, input.args, input.wholeChannel ?? false);
  }

  private async runCommand(
    world: WorldSettings,
    input: Pick<InboundMessage, "chat" | "sender">,
    name: ChatCommandRequest["name"],
    args: string[],
    wholeChannel = false,
  ): Promise<ChatCommandAnswer> {
    const log = this.context.logger.child({ platform: input.chat.platform, chat: chatKey(input.chat) });
    const adapter = this.context.channels.main(input.chat.platform);
    if (
      !(await mayTalk(
        world,
        accessChannelFor(this.context.channels, input.chat.platform),
        input.sender,
        rolesLookup(adapter, input.chat, input.sender),
      ))
    ) {
      log.info({ command: name, user: input.sender.id }, "command from a non-member refused");
      return { status: "refused", text: notMemberCommandText };
    }
    const answer = await runChatCommand(this.context, this.outbox, this.interrupts, {
      world,
      chat: input.chat,
      sender: input.sender,
      name,
      args,
      wholeChannel,
    });
    log.info({ command: name, user: input.sender.id, status: answer.status }, "chat command handled");
    return answer;
  }

  /** A channel's chat and the thread chats in it that have had turns (where session approvals live). */
  private async channelChats(chat: InboundMessage["chat"]): Promise<InboundMessage["chat"][]> {
    const key = chatKey(chat);
    const keys = new Set((await this.context.store.listTurns({ chatKeyPrefix: key })).map((turn) => turn.chatKey));
    keys.delete(key);
    return [chat, ...[...keys].sort().map((each) => parseChatKey(each))];
  }

  /** `/reset`: a new session epoch (session approvals end) and pending cards closed, said in the chat. */
  private async resetChat(chat: InboundMessage["chat"], noticeId: string, by: Sender): Promise<void> {
    const key = chatKey(chat);
    const epoch = await this.context.store.resetSession(key);
    const closed = await closePendingApprovals(this.context, this.outbox, key, `chat reset by ${by.displayName}`);
    this.context.logger.info(
      { chat: key, epoch, closedTurns: closed, user: by.id },
      "chat reset: session approvals cleared",
    );
    await this.postNotice(
      { chat },
      noticeId,
      `Chat reset by ${by.displayName}: approvals given for this session no longer apply${closed > 0 ? "; pending approvals were closed" : ""}.`,
    );
  }

  /** A refused typed command: told to the sender privately where the platform can, else in a short reply. */
  private async refusePrivately(inbound: InboundMessage, noticeId: string, text: string): Promise<boolean> {
    const adapter = this.context.channels.main(inbound.chat.platform);
    if (adapter && canReplyPrivately(adapter)) {
      try {
        await adapter.replyPrivately(inbound.chat, inbound.sender.id, text);
        return true;
      } catch (error) {
        this.context.logger.warn({ err: error, chat: chatKey(inbound.chat) }, "private reply failed; telling the chat");
      }
    }
    return this.postNotice(inbound, noticeId, `${inbound.sender.displayName}: ${text}`);
  }

  click(click: ApprovalClick): Promise<ClickResult> {
    return handleApprovalClick(this.context, click);
  }
}

/** The mark of a command delivery that was handled (the key earlier versions claimed before acting). */
function handledKey(chat: string, platformId: string): string {
  return `command:${chat}:${platformId}`;
}

/** What a non-member is told when they use a command. */
const notMemberCommandText = "Only members of this chat's world may use its commands.";
