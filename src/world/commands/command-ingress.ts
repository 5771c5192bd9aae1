import { accessChannelFor } from "../access/access-channel.js";
import { canReplyPrivately } from "../channel/channel-optional.js";
import { chatKey, parseChatKey } from "../chat-ref.js";
import type { CommandResult, InboundCommand, InboundMessage, IngressResult } from "../inbound.js";
import { inboundMessageId } from "../ingress/inbound-message-id.js";
import { KeyedSerializer } from "../ingress/keyed-serializer.js";
import { mayTalk } from "../access/membership.js";
import type { Outbox } from "../outbox.js";
import { postWorldNotice } from "../world-notice.js";
import type { TurnInterrupts } from "../turn/index.js";
import { rolesLookup } from "../access/user-roles.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";
import { isChatCommandName } from "./chat-commands.js";
import type { ParsedChatCommand } from "./parse-chat-command.js";
import { resetChat } from "./reset-chat.js";
import { mayReset, resetRefusedText } from "./reset-rights.js";
import { type ChatCommandAnswer, type ChatCommandRequest, runChatCommand } from "./run-chat-command.js";

/**
 * Chat commands at ingress, typed (a message of its own) or from a platform structure (a Stop
 * button, a slash command): deduped by a "handled" mark, checked, run and answered.
 */
export class CommandIngress {
  /** Deliveries of one command in this process run one after another (see `typed`). */
  private readonly serializer = new KeyedSerializer();

  constructor(
    private readonly context: WorldContext,
    private readonly outbox: Outbox,
    private readonly interrupts: TurnInterrupts,
  ) {}

  /**
   * A command typed as a message of its own. It is not a message of the conversation: it is
   * not stored as one and never reaches the agents; it runs here, not behind the chat's queue.
   */
  async typed(inbound: InboundMessage, world: WorldSettings, command: ParsedChatCommand): Promise<IngressResult> {
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
    return this.serializer.run(handled, () => this.typedOnce(inbound, world, command.name, command.args));
  }

  private async typedOnce(
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
      answer.status === "refused" || answer.private === true
        ? await this.refusePrivately(inbound, noticeId, answer.text)
        : await postWorldNotice(this.context, this.outbox, { chat: inbound.chat, id: noticeId, text: answer.text });
    await store.claimInboundKey(handled);
    if (!shown) {
      log.info({ messageId: inbound.platformMessageId }, "command delivered again; its answer was shown already");
      return { status: "duplicate" };
    }
    return { status: "ignored", reason: `chat command /${name}` };
  }

  /** A command from a platform structure (a Stop button, a slash command): answered to the sender. */
  async structured(input: InboundCommand): Promise<CommandResult> {
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
    // Read before acting, claimed after (see `typed`): a delivery cut by a crash acts again.
    if (input.platformEventId === undefined) return this.structuredOnce(world, input, name);
    const handled = handledKey(key, input.platformEventId);
    return this.serializer.run(handled, async () => {
      if (await store.hasInboundKey(handled)) {
        log.info({ event: input.platformEventId }, "duplicate command delivery dropped");
        return { status: "done", text: "This was already handled." };
      }
      const answer = await this.structuredOnce(world, input, name);
      await store.claimInboundKey(handled);
      return answer;
    });
  }

  private async structuredOnce(
    world: WorldSettings,
    input: InboundCommand,
    name: ChatCommandRequest["name"] | "reset",
  ): Promise<CommandResult> {
    const { store, logger } = this.context;
    const key = chatKey(input.chat);
    const log = logger.child({ platform: input.chat.platform, chat: key, user: input.sender.id });
    await store.ensureChat(key, world.name, input.chat.platform);
    if (name === "reset") {
      if (!(await this.isMember(world, input))) {
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
        await resetChat(this.context, this.outbox, chat, `command:${chatKey(chat)}:${event}:reset`, input.sender);
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
    if (!(await this.isMember(world, input))) {
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
    return postWorldNotice(this.context, this.outbox, {
      chat: inbound.chat,
      id: noticeId,
      text: `${inbound.sender.displayName}: ${text}`,
    });
  }

  private isMember(world: WorldSettings, input: Pick<InboundMessage, "chat" | "sender">): Promise<boolean> {
    const { chat, sender } = input;
    return mayTalk(
      world,
      accessChannelFor(this.context.channels, chat.platform),
      sender,
      rolesLookup(this.context, chat, sender),
    );
  }
}

/** The mark of a command delivery that was handled (the key earlier versions claimed before acting). */
function handledKey(chat: string, platformId: string): string {
  return `command:${chat}:${platformId}`;
}

/** What a non-member is told when they use a command. */
const notMemberCommandText = "Only members of this chat's world may use its commands.";
