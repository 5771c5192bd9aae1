import type { Logger } from "../../src/log/logger.js";
import type { ApprovalCard, ApprovalOutcome, ChatRef, PartKey } from "../../src/world/channel-adapter.js";
import { type DiscordApi, discordCodeOf, discordErrorCodes } from "./api.js";
import { targetChannelOf } from "./chat-locator.js";
import { BotPoster, reuse } from "./poster.js";
import { type DiscordPart, renderApprovalCard, renderApprovalOutcome } from "./render.js";

/** Discord's refusals that mean the bot cannot write to a person: no such user or channel, DMs closed, no access. */
const unreachableCodes = new Set<number | string>([50007, 10003, 10013, 50001]);

/**
 * The Discord adapter's approval-card surface: a card posted from the bot itself (presses on its
 * buttons reach the bot's gateway), drawn again, edited to its outcome, and the DM a card routed
 * to an approver goes to. The reason and edit modals are `input-modal.ts`.
 */
export class DiscordApprovalCards {
  constructor(
    private readonly api: DiscordApi,
    private readonly logger: Logger,
  ) {}

  /** Long arguments attached; with a key that may exist, an earlier run's card is shown again instead. */
  async send(chat: ChatRef, card: ApprovalCard, key?: PartKey): Promise<{ id: string }> {
    const poster = new BotPoster(this.api, targetChannelOf(chat), undefined, this.logger);
    const body = renderApprovalCard(card);
    const found = key?.mayExist ? await poster.find(body.content, key) : undefined;
    return { id: found ? await reuse(poster, found, body) : await poster.send(body, key) };
  }

  /** A pending card drawn again (a quorum's progress, an escalation), its buttons kept, its attachment untouched. */
  async redraw(chat: ChatRef, id: string, card: ApprovalCard): Promise<"edited" | "gone"> {
    return this.editOrGone(chat, id, { ...renderApprovalCard(card), files: [] });
  }

  async edit(chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone"> {
    return this.editOrGone(chat, id, renderApprovalOutcome(outcome));
  }

  renderOutcome(outcome: ApprovalOutcome): DiscordPart {
    return { content: renderApprovalOutcome(outcome).content, userIds: [] };
  }

  /** The bot's DM channel with a person (an approval card routed to approvers' DMs). */
  async openDirectChat(userId: string): Promise<ChatRef> {
    return { platform: "discord", channel: await this.api.directChannel(userId) };
  }

  cannotReach(error: unknown): boolean {
    const code = discordCodeOf(error);
    return code !== undefined && unreachableCodes.has(code);
  }

  /** The card's message edited; "gone" when Discord no longer knows it. */
  private async editOrGone(
    chat: ChatRef,
    id: string,
    body: Parameters<DiscordApi["edit"]>[2],
  ): Promise<"edited" | "gone"> {
    try {
      await this.api.edit(targetChannelOf(chat), id, body);
      return "edited";
    } catch (error) {
      if (discordCodeOf(error) !== discordErrorCodes.unknownMessage) throw error;
      return "gone";
    }
  }
}
