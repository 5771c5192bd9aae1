import type { Logger } from "../../src/log/logger.js";
import type {
  ApprovalInput,
  ChatRef,
  ClickResult,
  InboundMessage,
  InboundSink,
} from "../../src/world/channel-adapter.js";
import { type BotHandle, chatIdOf, threadOf, toPlatformError } from "./api.js";
import { escapeHtml } from "./markdown-html.js";
import type { InputAsk } from "./parse.js";

/** A prompt posted for *Deny with reason…* or *Edit…*: whose reply it waits for, for which card. */
interface Prompt {
  approvalId: string;
  input: ApprovalInput;
  userId: string;
}

/** How many prompts one process remembers (the oldest is forgotten first). */
const maxPrompts = 500;

/**
 * Telegram has no modal: *Deny with reason…* and *Edit…* post a `force_reply` prompt naming the
 * presser, and only that person's reply to it is the reason or the edited arguments
 * (docs/approvals.md). Someone else's reply is an ordinary message. The prompts live in this
 * process (a prompt posted before a restart is answered by pressing the button again).
 */
export class InputPrompts {
  private readonly prompts = new Map<string, Prompt>();

  constructor(private readonly logger: Logger) {}

  /** Post the prompt for a press, replying to the card; answer the press. */
  async ask(bot: BotHandle, ask: InputAsk): Promise<string> {
    const who = `<a href="tg://user?id=${escapeHtml(ask.user.id)}">${escapeHtml(ask.user.displayName)}</a>`;
    const html =
      ask.input === "reason"
        ? `${who}, reply to this message with your reason for denying this call.`
        : `${who}, reply to this message with the arguments as JSON (edit them; the edited call runs once):\n<pre><code class="language-json">${escapeHtml(ask.cardArguments ?? "{}")}</code></pre>`;
    try {
      const sent = await bot.api.sendMessage(chatIdOf(ask.chat), html, {
        ...threadOf(ask.chat),
        parse_mode: "HTML",
        reply_parameters: { message_id: ask.cardMessageId, allow_sending_without_reply: true },
        reply_markup: {
          force_reply: true,
          selective: true,
          input_field_placeholder: ask.input === "reason" ? "Reason for denying" : "Edited arguments (JSON)",
        },
      });
      this.remember(ask.chat, sent.message_id, { approvalId: ask.approvalId, input: ask.input, userId: ask.user.id });
    } catch (error) {
      throw toPlatformError(error, "sendMessage");
    }
    return ask.input === "reason"
      ? "Reply to my message with your reason."
      : "Reply to my message with the edited JSON.";
  }

  /**
   * A message that answers a prompt by the person it names becomes the decision; anything else
   * (someone else's reply included) is left to be an ordinary message. Returns whether it was taken.
   */
  async answer(bot: BotHandle, sink: InboundSink, message: InboundMessage): Promise<boolean> {
    if (message.replyTo === undefined) return false;
    const key = keyOf(message.chat, Number(message.replyTo));
    const prompt = this.prompts.get(key);
    if (!prompt) return false;
    if (prompt.userId !== message.sender.id) {
      this.logger.info(
        { approvalId: prompt.approvalId, user: message.sender.id },
        "reply to someone else's prompt: an ordinary message",
      );
      return false;
    }
    const result = await sink.click({
      chat: message.chat,
      approvalId: prompt.approvalId,
      choice: prompt.input === "reason" ? "deny" : "edit",
      user: message.sender,
      platformEventId: message.platformMessageId,
      ...(prompt.input === "reason" ? { reason: message.text } : { editedArgumentsJson: message.text }),
      raw: message.raw,
    });
    // An invalid edit keeps the prompt: the same person may reply again.
    if (result.status !== "invalid") this.prompts.delete(key);
    if (result.status !== "decided") await this.tellPrivately(bot, message, result);
    return true;
  }

  /**
   * A refusal goes to the person's private chat with the bot; where they never started it,
   * the only way left is a reply in the chat (logged).
   */
  private async tellPrivately(bot: BotHandle, message: InboundMessage, result: ClickResult): Promise<void> {
    try {
      await bot.api.sendMessage(Number(message.sender.id), result.text);
      return;
    } catch (error) {
      this.logger.warn({ err: error, user: message.sender.id }, "could not answer privately; replying in the chat");
    }
    try {
      await bot.api.sendMessage(chatIdOf(message.chat), result.text, {
        ...threadOf(message.chat),
        reply_parameters: { message_id: Number(message.platformMessageId), allow_sending_without_reply: true },
      });
    } catch (error) {
      this.logger.error({ err: error }, "could not answer a prompt's reply");
    }
  }

  private remember(chat: ChatRef, messageId: number, prompt: Prompt): void {
    if (this.prompts.size >= maxPrompts) {
      const oldest = this.prompts.keys().next().value;
      if (oldest !== undefined) this.prompts.delete(oldest);
    }
    this.prompts.set(keyOf(chat, messageId), prompt);
  }
}

function keyOf(chat: ChatRef, messageId: number): string {
  return `${chat.channel}:${chat.thread ?? ""}:${messageId}`;
}
