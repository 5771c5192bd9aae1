import type { Update } from "grammy/types";
import { assertNever } from "../../src/errors/assert-never.js";
import { isDatabaseUnreachable } from "../../src/errors/database-unreachable.js";
import type { Logger } from "../../src/log/logger.js";
import type { InboundAttachment, InboundSink } from "../../src/world/channel-adapter.js";
import type { AdminRoles } from "./admin-roles.js";
import type { BotHandle, TelegramOutbound } from "./api.js";
import type { MentionDirectory } from "./mentions.js";
import { failedText, staleButtonText } from "../kit/texts.js";
import { type ParsedUpdate, parseUpdate, type TelegramFileRef } from "./parse.js";
import type { InputPrompts } from "./input-prompts.js";

/** What handing one update to the world needs from the adapter. */
export interface UpdateDispatch {
  sink: InboundSink;
  directory: MentionDirectory;
  logger: Logger;
  adminRoles: AdminRoles;
  outbound: TelegramOutbound;
  /** The bot that answers button presses. */
  main: BotHandle;
  /** The prompts of *Deny with reason…* and *Edit…* waiting for their replies. */
  prompts: InputPrompts;
  /** A message's files as the world downloads them (`getFile`, then the file endpoint). */
  attachmentsOf(files: readonly TelegramFileRef[]): InboundAttachment[];
}

interface PressAnswer {
  text: string;
  alert: boolean;
}

/**
 * One update, from polling or the webhook: parsed, handed to the world, and a button press
 * answered (an alert unless it was taken). Only a failure of the world itself is thrown.
 */
export async function dispatchUpdate(update: Update, parts: UpdateDispatch): Promise<void> {
  const { sink, outbound, main } = parts;
  const parsed = parseUpdate(update, parts.directory);
  const log = parts.logger.child({ updateId: update.update_id });
  switch (parsed.kind) {
    case "message": {
      // The reply to a reason or edit prompt by the person it names is their decision, not a message.
      if (await parts.prompts.answer(main, sink, parsed.message)) return;
      const attachments = parsed.files.length === 0 ? [] : parts.attachmentsOf(parsed.files);
      const result = await sink.message(attachments.length === 0 ? parsed.message : { ...parsed.message, attachments });
      log.debug({ chat: parsed.message.chat.channel, status: result.status }, "telegram message handed in");
      return;
    }
    case "click":
    case "command": {
      const answer = await answerPress(parts, parsed, log);
      await outbound.answerCallback(main, parsed.callbackQueryId, answer.text, answer.alert);
      return;
    }
    case "ask": {
      let text: string;
      try {
        text = await parts.prompts.ask(main, parsed.ask);
      } catch (error) {
        log.error({ err: error, approvalId: parsed.ask.approvalId }, "reason or edit prompt failed");
        text = failedText;
      }
      await outbound.answerCallback(main, parsed.callbackQueryId, text, false);
      return;
    }
    case "bad-click":
      log.warn({ reason: parsed.reason }, "telegram button press refused");
      await outbound.answerCallback(main, parsed.callbackQueryId, staleButtonText, true);
      return;
    case "ignored":
      log.debug({ reason: parsed.reason }, "telegram update ignored");
      return;
    case "invalid":
      log.warn({ reason: parsed.reason }, "malformed telegram update skipped");
      return;
    default:
      assertNever(parsed, "parsed update");
  }
}

/**
 * A press (an approval click, a command button) with the presser's admin roles; a failure
 * becomes an alert and a log line, except the database being away, which is thrown.
 */
async function answerPress(
  parts: UpdateDispatch,
  parsed: Extract<ParsedUpdate, { kind: "click" | "command" }>,
  log: Logger,
): Promise<PressAnswer> {
  const { chat, user } = parsed.kind === "click" ? parsed.click : { ...parsed.command, user: parsed.command.sender };
  try {
    const roles = await parts.adminRoles.rolesOf(chat, user.id);
    const presser = roles.length === 0 ? user : { ...user, roles };
    if (parsed.kind === "click") {
      const result = await parts.sink.click({ ...parsed.click, user: presser });
      return { text: result.text, alert: result.status !== "decided" && result.status !== "already-decided" };
    }
    const result = await parts.sink.command({ ...parsed.command, sender: presser });
    return { text: result.text, alert: result.status !== "done" };
  } catch (error) {
    // The database away: the press is not answered, its update stays unconfirmed and is handed
    // in again once the world can store it (docs/reliability.md), rather than lost behind an alert.
    if (isDatabaseUnreachable(error)) throw error;
    if (parsed.kind === "click")
      log.error({ err: error, approvalId: parsed.click.approvalId }, "approval click failed");
    else log.error({ err: error, command: parsed.command.name }, "command button failed");
    return { text: failedText, alert: true };
  }
}
