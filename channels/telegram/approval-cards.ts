import type { Logger } from "../../src/log/logger.js";
import type { ApprovalCard, ApprovalOutcome, ChatRef } from "../../src/world/channel-adapter.js";
import { type BotHandle, type TelegramOutbound, isRefusal, isUnreachableChat } from "./api.js";
import {
  type TelegramPart,
  cardArgumentsFile,
  htmlToPlain,
  renderApprovalCard,
  renderApprovalOutcome,
} from "./render.js";

/** Telegram's refusals of an edit that mean the card's message can no longer be changed. */
const cardGone = /message to edit not found|message can't be edited/i;

export interface TelegramApprovalCardsSetup {
  /** The main bot: cards always come from it (its updates are the ones read, presses included). */
  main: BotHandle;
  outbound: TelegramOutbound;
  logger: Logger;
  /** A change in the chat by `bot`, for the adapter's `typing` budget. */
  noteChange(bot: BotHandle, chat: ChatRef): void;
}

/**
 * The Telegram adapter's approval-card surface: a card posted (its long arguments as a document
 * replying to it), drawn again, edited to its outcome, and the private chat a card routed to an
 * approver goes to. The reason and edit prompts are `input-prompts.ts`.
 */
export class TelegramApprovalCards {
  constructor(private readonly setup: TelegramApprovalCardsSetup) {}

  /** Arguments too long for the card follow as a document replying to it (`attach`). */
  async send(chat: ChatRef, card: ApprovalCard): Promise<{ id: string; attach?: () => Promise<void> }> {
    const { main, outbound } = this.setup;
    const { html, keyboard } = renderApprovalCard(card);
    this.setup.noteChange(main, chat);
    const id = String(await outbound.send(main, chat, { html, plain: htmlToPlain(html) }, { keyboard }));
    const file = cardArgumentsFile(card);
    if (!file) return { id };
    const caption = `Arguments of ${card.tool}, id ${card.shortId}, in full`;
    return { id, attach: () => outbound.sendDocument(main, chat, file, { replyTo: id, caption }) };
  }

  /** A pending card drawn again (a quorum's progress, an escalation), its buttons kept. */
  async redraw(chat: ChatRef, id: string, card: ApprovalCard): Promise<"edited" | "gone"> {
    const { html, keyboard } = renderApprovalCard(card);
    const messageId = Number(id);
    try {
      // Programming error: a card's stored id is the message id this adapter returned.
      if (!Number.isInteger(messageId)) throw new Error(`no card message id in ${JSON.stringify(id)}`);
      await this.setup.outbound.edit(this.setup.main, chat, messageId, { html, plain: htmlToPlain(html) }, keyboard);
      return "edited";
    } catch (error) {
      const cause = error instanceof Error ? error.cause : undefined;
      if (Number.isInteger(messageId) && !isRefusal(cause, cardGone)) throw error;
      this.setup.logger.warn({ err: error, approvalId: card.approvalId }, "approval card could not be redrawn");
      return "gone";
    }
  }

  async edit(chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone"> {
    const messageId = Number(id);
    try {
      // Programming error: a card's stored id is the message id this adapter returned.
      if (!Number.isInteger(messageId)) throw new Error(`no card message id in ${JSON.stringify(id)}`);
      await this.setup.outbound.edit(this.setup.main, chat, messageId, this.renderOutcome(outcome));
      return "edited";
    } catch (error) {
      const cause = error instanceof Error ? error.cause : undefined;
      if (Number.isInteger(messageId) && !isRefusal(cause, cardGone)) throw error;
      this.setup.logger.warn(
        { err: error, approvalId: outcome.approvalId },
        "approval card could not be edited; posting the outcome",
      );
      return "gone";
    }
  }

  renderOutcome(outcome: ApprovalOutcome): TelegramPart {
    const html = renderApprovalOutcome(outcome);
    return { html, plain: htmlToPlain(html) };
  }

  /** A person's private chat with the bot: its id is theirs (a post there is refused until they started the bot). */
  openDirectChat(userId: string): ChatRef {
    return { platform: "telegram", channel: userId };
  }

  cannotReach(error: unknown): boolean {
    return isUnreachableChat(error);
  }
}
