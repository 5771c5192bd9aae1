import { assertNever } from "../../src/errors/assert-never.js";
import type { Logger } from "../../src/log/logger.js";
import {
  type ChannelClock,
  chatKey,
  type ChatRef,
  type ClickResult,
  type InboundMessage,
  type InboundSink,
} from "../../src/world/channel-adapter.js";
import type { SlackOutbound } from "./api.js";
import type { ApproverGroups } from "./approver-groups.js";
import { type ParseContext, parseAction, parseEvent, userIdsToName } from "./parse.js";
import { inputModal, modalError, parseSubmission } from "./input-modals.js";
import type { ThreadRoots } from "./thread-roots.js";
import type { UserNames } from "./user-names.js";
import { failedText, staleButtonText } from "../kit/texts.js";

/** How long an `event_id` is remembered to drop redeliveries before they reach the world. */
const eventMemoryMs = 60 * 60 * 1000;
/** Attempts to hand one message to the world (its storage may be briefly unavailable). */
const deliveryAttempts = 4;

export interface InboundHandlerSetup {
  sink: InboundSink;
  outbound: SlackOutbound;
  names: UserNames;
  groups: ApproverGroups;
  clock: ChannelClock;
  logger: Logger;
  context: Omit<ParseContext, "userNames">;
  threadRoots: ThreadRoots;
  /** The last person who wrote in each chat (shared by the adapter's workspaces). */
  people: LastPeople;
}

/** A slash command's fields (`/roundtable <command> [args]`). */
export interface SlashCommand {
  text?: string;
  user_id: string;
  user_name?: string;
  channel_id: string;
  team_id?: string;
  trigger_id?: string;
}

/**
 * What arrives from Slack after the ack: events become inbound messages, button presses
 * clicks, `/roundtable` commands commands. Refusals are told privately (ephemeral).
 */
export class SlackInboundHandler {
  private readonly seenEvents = new Map<string, number>();

  constructor(private readonly setup: InboundHandlerSetup) {}

  async event(body: Record<string, unknown>, retryNum?: number): Promise<void> {
    const { logger, names, context } = this.setup;
    const eventId = typeof body.event_id === "string" ? body.event_id : undefined;
    if (eventId !== undefined && this.remember(eventId)) {
      logger.info({ eventId, retryNum }, "slack event delivered again; already handled");
      return;
    }
    const userNames = await names.namesOf(userIdsToName(body));
    const parsed = parseEvent(body, { ...context, userNames });
    switch (parsed.kind) {
      case "message": {
        const { message } = parsed;
        if (!message.ownEcho && !message.sender.isBot)
          this.setup.people.remember(chatKey(message.chat), message.sender.id);
        const root = message.ownEcho ? undefined : await this.setup.threadRoots.rootOf(message);
        await this.deliver(root ? { ...message, threadRoot: root } : message, parsed.eventId);
        return;
      }
      case "ignored":
        logger.debug({ eventId, reason: parsed.reason }, "slack event ignored");
        return;
      case "invalid":
        logger.warn({ eventId, reason: parsed.reason }, "malformed slack event skipped");
        return;
      default:
        assertNever(parsed, "parsed slack event");
    }
  }

  async action(body: Record<string, unknown>): Promise<void> {
    const { sink, groups, logger, context } = this.setup;
    const parsed = parseAction(body, { teamId: context.teamId, userNames: new Map() });
    switch (parsed.kind) {
      case "invalid":
        logger.warn({ reason: parsed.reason }, "malformed slack button press skipped");
        return;
      case "bad-click":
        logger.warn({ reason: parsed.reason, user: parsed.user }, "slack button press refused");
        if (parsed.chat) await this.tellPrivately(parsed.chat, parsed.user, staleButtonText);
        return;
      case "command": {
        const { command } = parsed;
        let text: string;
        try {
          const [roles, name] = await Promise.all([
            groups.rolesOf(command.sender.id),
            this.setup.names.nameOf(command.sender.id),
          ]);
          const sender = {
            ...command.sender,
            displayName: name === command.sender.id ? command.sender.displayName : name,
            ...(roles.length > 0 ? { roles } : {}),
          };
          text = (await sink.command({ ...command, sender })).text;
        } catch (error) {
          logger.error({ err: error, command: command.name }, "slack stop button failed");
          text = failedText;
        }
        await this.tellPrivately(command.chat, command.sender.id, text);
        return;
      }
      case "ask": {
        const { ask } = parsed;
        try {
          await this.setup.outbound.openView(ask.chat, ask.triggerId, inputModal(ask));
        } catch (error) {
          logger.error({ err: error, approvalId: ask.approvalId }, "slack reason or edit modal not opened");
          await this.tellPrivately(ask.chat, ask.user, failedText);
        }
        return;
      }
      case "click": {
        const { click } = parsed;
        let text: string | undefined;
        try {
          const [roles, name] = await Promise.all([
            groups.rolesOf(click.user.id),
            this.setup.names.nameOf(click.user.id),
          ]);
          const user = {
            ...click.user,
            displayName: name === click.user.id ? click.user.displayName : name,
            ...(roles.length > 0 ? { roles } : {}),
          };
          const result = await sink.click({ ...click, user });
          logger.info(
            { approvalId: click.approvalId, user: click.user.id, status: result.status },
            "slack approval click handled",
          );
          text = result.text;
        } catch (error) {
          logger.error({ err: error, approvalId: click.approvalId }, "approval click failed");
          text = failedText;
        }
        if (text !== undefined) await this.tellPrivately(click.chat, click.user.id, text);
        return;
      }
      default:
        assertNever(parsed, "parsed slack action");
    }
  }

  async command(command: SlashCommand): Promise<void> {
    const { sink, logger, context } = this.setup;
    const [name = "help", ...args] = (command.text ?? "").trim().replace(/^\//, "").split(/\s+/).filter(Boolean);
    const chat: ChatRef = {
      platform: "slack",
      workspace: command.team_id ?? context.teamId,
      channel: command.channel_id,
    };
    try {
      const displayName = await this.setup.names.nameOf(command.user_id);
      const result = await sink.command({
        chat,
        name,
        args,
        sender: {
          id: command.user_id,
          displayName,
          isBot: false,
          ...(command.user_name ? { handle: command.user_name } : {}),
        },
        ...(command.trigger_id === undefined ? {} : { platformEventId: command.trigger_id }),
        // Slack offers slash commands only at channel level; answers live in threads.
        wholeChannel: true,
        raw: command,
      });
      await this.tellPrivately(chat, command.user_id, result.text);
    } catch (error) {
      logger.error({ err: error, command: name }, "slack command failed");
      await this.tellPrivately(chat, command.user_id, failedText);
    }
  }

  /** Hand a message to the world, retrying a few times: Slack will not deliver it again after the ack. */
  private async deliver(message: InboundMessage, eventId: string): Promise<void> {
    const { sink, logger, clock } = this.setup;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = await sink.message(message);
        logger.debug({ eventId, chat: message.chat.channel, status: result.status }, "slack message handed in");
        return;
      } catch (error) {
        if (attempt >= deliveryAttempts) {
          logger.error(
            { err: error, eventId, ts: message.platformMessageId },
            "slack message not taken by the world; skipped",
          );
          return;
        }
        logger.warn({ err: error, eventId, attempt }, "slack message not taken by the world; retrying");
        await clock.sleep(500 * 2 ** (attempt - 1));
      }
    }
  }

  /**
   * A reason or edit modal submitted: the decision it carries, answered in the modal when the
   * edit does not fit (it stays open, seen only by its user), else privately in the chat.
   */
  async submission(body: Record<string, unknown>): Promise<unknown> {
    const { sink, groups, logger, context } = this.setup;
    const parsed = parseSubmission(body, context.teamId);
    if (!parsed.ok) {
      logger.warn({ reason: parsed.reason }, "slack modal submission refused");
      return undefined;
    }
    const { submission } = parsed;
    let result: ClickResult;
    try {
      const [roles, name] = await Promise.all([
        groups.rolesOf(submission.user.id),
        this.setup.names.nameOf(submission.user.id),
      ]);
      result = await sink.click({
        chat: submission.chat,
        approvalId: submission.approvalId,
        choice: submission.input === "reason" ? "deny" : "edit",
        user: {
          id: submission.user.id,
          displayName: name === submission.user.id ? submission.user.name : name,
          isBot: false,
          ...(submission.user.username === undefined ? {} : { handle: submission.user.username }),
          ...(roles.length > 0 ? { roles } : {}),
        },
        platformEventId: submission.eventId,
        ...(submission.input === "reason" ? { reason: submission.text } : { editedArgumentsJson: submission.text }),
        raw: body,
      });
      logger.info(
        { approvalId: submission.approvalId, user: submission.user.id, status: result.status },
        "slack modal decision handled",
      );
    } catch (error) {
      logger.error({ err: error, approvalId: submission.approvalId }, "slack modal decision failed");
      return modalError(failedText);
    }
    if (result.status === "invalid") return modalError(result.text);
    await this.tellPrivately(submission.chat, submission.user.id, result.text);
    return undefined;
  }

  private async tellPrivately(chat: ChatRef, user: string, text: string): Promise<void> {
    try {
      await this.setup.outbound.postEphemeral(chat, user, text);
    } catch (error) {
      this.setup.logger.warn({ err: error, user }, "slack ephemeral answer failed");
    }
  }

  /** True when `eventId` was seen within the last hour; records it otherwise. */
  private remember(eventId: string): boolean {
    const now = this.setup.clock.now();
    const seen = this.seenEvents.get(eventId);
    if (seen !== undefined && now - seen < eventMemoryMs) return true;
    this.seenEvents.set(eventId, now);
    if (this.seenEvents.size > 5000) {
      for (const [id, at] of this.seenEvents) if (now - at >= eventMemoryMs) this.seenEvents.delete(id);
    }
    return false;
  }
}

/** The last person who wrote in each chat, by chat key: Slack streams to a recipient (`stream: native`). */
export class LastPeople {
  private readonly people = new Map<string, string>();

  /** The person who wrote last in the chat with key `key`, when one did since start. */
  in(key: string): string | undefined {
    return this.people.get(key);
  }

  remember(key: string, userId: string): void {
    this.people.delete(key);
    this.people.set(key, userId);
    if (this.people.size > 5000) {
      const oldest = this.people.keys().next().value;
      if (oldest !== undefined) this.people.delete(oldest);
    }
  }
}
