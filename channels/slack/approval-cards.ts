import { PlatformApiError } from "../../src/errors/roundtable-error.js";
import type { Logger } from "../../src/log/logger.js";
import type { ApprovalCard, ApprovalOutcome, ChatRef, PartKey } from "../../src/world/channel-adapter.js";
import { type Block, type SlackOutbound, slackErrorCode } from "./api.js";
import { findEarlierPost } from "./post-once.js";
import { renderApprovalCard, renderApprovalOutcome, renderText, type SlackPart } from "./render.js";

/** Slack's refusals that say nothing about the chat: tried again, never taken as "cannot reach". */
const passingSlackErrors = new Set(["internal_error", "fatal_error", "service_unavailable", "request_timeout"]);

/**
 * The Slack adapter's approval-card surface: a card posted as the app (its key as metadata, its
 * long arguments as a snippet under it), drawn again, edited to its outcome, and the DM a card
 * routed to an approver goes to. The reason and edit modals are `input-modals.ts`.
 */
export class SlackApprovalCards {
  constructor(
    private readonly outbound: SlackOutbound,
    private readonly logger: Logger,
  ) {}

  /** An earlier run's card with `key` is shown again instead. */
  async send(chat: ChatRef, card: ApprovalCard, key?: PartKey): Promise<{ id: string; attach?: () => Promise<void> }> {
    const { text, blocks, attachment } = renderApprovalCard(card);
    let id = key?.mayExist ? await findEarlierPost(this.outbound, this.logger, chat, key) : undefined;
    if (id === undefined) id = await this.outbound.post(chat, text, {}, blocks, key?.key);
    else await this.outbound.update(chat, id, text, blocks);
    return { id, ...(attachment ? { attach: () => this.attachArguments(chat, card, attachment) } : {}) };
  }

  /** A pending card drawn again (a quorum's progress, an escalation), its buttons kept. */
  async redraw(chat: ChatRef, id: string, card: ApprovalCard): Promise<"edited" | "gone"> {
    const { text, blocks } = renderApprovalCard(card);
    return this.updateCard(chat, id, text, blocks, card.approvalId, "approval card could not be redrawn");
  }

  async edit(chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone"> {
    const { text, blocks } = renderApprovalOutcome(outcome);
    return this.updateCard(chat, id, text, blocks, outcome.approvalId, "approval card could not be edited");
  }

  renderOutcome(outcome: ApprovalOutcome): SlackPart {
    return renderApprovalOutcome(outcome);
  }

  /** The app's DM channel with a person (an approval card routed to approvers' DMs). */
  openDirectChannel(userId: string): Promise<string> {
    return this.outbound.openDirect(userId);
  }

  /** Slack refused the post itself (no such user or channel, not allowed), not a passing fault. */
  cannotReach(error: unknown): boolean {
    if (!(error instanceof PlatformApiError) || error.retryAfterMs !== undefined) return false;
    const code = slackErrorCode(error.cause);
    return code !== undefined && !passingSlackErrors.has(code);
  }

  /** A card's message updated; "gone" when Slack says it no longer exists or cannot be edited. */
  private async updateCard(
    chat: ChatRef,
    id: string,
    text: string,
    blocks: Block[],
    approvalId: string,
    gone: string,
  ): Promise<"edited" | "gone"> {
    try {
      await this.outbound.update(chat, id, text, blocks);
      return "edited";
    } catch (error) {
      const code = slackErrorCode(error instanceof Error ? error.cause : undefined);
      if (code !== "message_not_found" && code !== "cant_update_message") throw error;
      this.logger.warn({ err: error, approvalId }, gone);
      return "gone";
    }
  }

  /** The whole arguments as a snippet under the card; if files cannot be sent, as messages. */
  private async attachArguments(
    chat: ChatRef,
    card: ApprovalCard,
    file: { filename: string; content: string },
  ): Promise<void> {
    const comment = `Full arguments of approval ${card.shortId} (${card.agent} → ${card.tool})`;
    try {
      await this.outbound.uploadSnippet(chat, file.filename, file.content, comment);
    } catch (error) {
      this.logger.error(
        { err: error, approvalId: card.approvalId },
        "could not attach the arguments as a file (files:write?); posting them as messages",
      );
      for (const part of renderText(`${comment}:\n\`\`\`\n${file.content}\n\`\`\``))
        await this.outbound.post(chat, part);
    }
  }
}
