import type { Logger } from "../../src/log/logger.js";
import { type ClickResult, type CommandResult, systemClock } from "../../src/world/channel-adapter.js";
import type { DiscordApi } from "./api.js";
import { failedText, staleButtonText } from "../kit/texts.js";

/** Discord forgets an interaction not answered within 3 s; the world gets this long first. */
const quickAnswerMs = 1_500;

const callback = { reply: 4, deferredReply: 5, deferredUpdate: 6 } as const;
const ephemeral = 1 << 6;

/** What `work` gives within {@link quickAnswerMs}, else undefined (it goes on). */
async function quickly<T>(work: Promise<T>): Promise<T | undefined> {
  const timer = new AbortController();
  // Discord's deadline is real time, whatever clock the rest of the adapter runs on.
  const late = systemClock.sleep(quickAnswerMs, timer.signal).catch(() => undefined);
  const early = await Promise.race([work, late.then(() => undefined)]);
  timer.abort();
  return early;
}

/**
 * Answers button presses within Discord's 3 seconds. The press is acknowledged as a deferred
 * update (the card itself is edited by the world's card update) and the world's answer follows
 * as an ephemeral follow-up only the presser sees ("Approved once."). A refusal (not allowed,
 * already decided, expired, unknown) that the world gives quickly is an ephemeral reply
 * instead; nothing else changes. A slower world gets the deferred update first either way.
 */
export class ClickAnswerer {
  constructor(
    private readonly api: DiscordApi,
    private readonly applicationId: string,
    private readonly logger: Logger,
  ) {}

  async answer(
    interaction: { id: string; token: string },
    decide: () => Promise<ClickResult>,
    approvalId: string,
  ): Promise<void> {
    const decision = decide().then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const early = await quickly(decision);
    if (early !== undefined) {
      if ("error" in early) {
        this.logger.error({ err: early.error, approvalId }, "approval click failed");
        await this.send(interaction, { type: callback.reply, data: { content: failedText, flags: ephemeral } });
        return;
      }
      if (early.result.status === "decided") {
        await this.send(interaction, { type: callback.deferredUpdate });
        await this.followUp(interaction, early.result.text);
        return;
      }
      await this.send(interaction, { type: callback.reply, data: { content: early.result.text, flags: ephemeral } });
      return;
    }
    await this.send(interaction, { type: callback.deferredUpdate });
    const late = await decision;
    if ("error" in late) {
      this.logger.error({ err: late.error, approvalId }, "approval click failed");
      await this.followUp(interaction, failedText);
      return;
    }
    await this.followUp(interaction, late.result.text);
  }

  /**
   * An application command: the world's answer as an ephemeral reply; a slower world gets a
   * deferred ephemeral reply ("thinking…") that its answer then replaces.
   */
  async answerCommand(
    interaction: { id: string; token: string },
    run: () => Promise<CommandResult>,
    name: string,
  ): Promise<void> {
    const outcome = run().then(
      (result) => ({ text: result.text }),
      (error: unknown) => {
        this.logger.error({ err: error, command: name }, "chat command failed");
        return { text: failedText };
      },
    );
    const early = await quickly(outcome);
    if (early !== undefined) {
      await this.send(interaction, { type: callback.reply, data: { content: early.text, flags: ephemeral } });
      return;
    }
    await this.send(interaction, { type: callback.deferredReply, data: { flags: ephemeral } });
    const late = await outcome;
    try {
      await this.api.editOriginal(this.applicationId, interaction.token, late.text);
    } catch (error) {
      this.logger.warn({ err: error, command: name }, "discord command answer failed");
    }
  }

  /** *Deny with reason…* or *Edit…*: the modal, as the press's answer (Discord shows it to the presser only). */
  async showModal(
    interaction: { id: string; token: string },
    modal: { type: 9; data: Record<string, unknown> },
  ): Promise<void> {
    await this.send(interaction, modal);
  }

  /** A press the adapter cannot read: a private note, nothing else. */
  async refuse(interaction: { id: string; token: string }): Promise<void> {
    await this.send(interaction, { type: callback.reply, data: { content: staleButtonText, flags: ephemeral } });
  }

  private async send(
    interaction: { id: string; token: string },
    body: { type: number; data?: Record<string, unknown> },
  ): Promise<void> {
    try {
      await this.api.respond(interaction, body);
    } catch (error) {
      // Too late or already answered: the decision (if any) stands.
      this.logger.warn({ err: error, interaction: interaction.id }, "discord interaction answer failed");
    }
  }

  private async followUp(interaction: { token: string }, text: string): Promise<void> {
    try {
      await this.api.followUp(this.applicationId, interaction.token, text, true);
    } catch (error) {
      this.logger.warn({ err: error }, "discord interaction follow-up failed");
    }
  }
}
