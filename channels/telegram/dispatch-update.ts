import type { Update } from "grammy/types";
import { assertNever } from "../../src/errors/assert-never.js";
import type { Logger } from "../../src/log/logger.js";
import type { ChatRef, InboundAttachment, InboundSink } from "../../src/world/channel-adapter.js";
import type { AdminRoles } from "./admin-roles.js";
import type { BotHandle, TelegramOutbound } from "./api.js";
import type { MentionDirectory } from "./mentions.js";
import { failedText, staleButtonText } from "../kit/texts.js";
import { parseUpdate, type TelegramFileRef } from "./parse.js";

/** What handing one update to the world needs from the adapter. */
export interface UpdateDispatch {
  sink: InboundSink;
  directory: MentionDirectory;
  logger: Logger;
  adminRoles: AdminRoles;
  outbound: TelegramOutbound;
  /** The bot that answers button presses. */
  main: BotHandle;
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
      const attachments = parsed.files.length === 0 ? [] : parts.attachmentsOf(parsed.files);
      const result = await sink.message(attachments.length === 0 ? parsed.message : { ...parsed.message, attachments });
      log.debug({ chat: parsed.message.chat.channel, status: result.status }, "telegram message handed in");
      return;
    }
    case "click": {
      const { click } = parsed;
      const answer = await answerPress(
        parts,
        click.chat,
        click.user.id,
        log,
        { approvalId: click.approvalId },
        "approval click failed",
        async (roles) => {
          const result = await sink.click(roles.length === 0 ? click : { ...click, user: { ...click.user, roles } });
          return { text: result.text, alert: result.status !== "decided" && result.status !== "already-decided" };
        },
      );
      await outbound.answerCallback(main, parsed.callbackQueryId, answer.text, answer.alert);
      return;
    }
    case "command": {
      const { command } = parsed;
      const answer = await answerPress(
        parts,
        command.chat,
        command.sender.id,
        log,
        { command: command.name },
        "command button failed",
        async (roles) => {
          const sender = roles.length === 0 ? command.sender : { ...command.sender, roles };
          const result = await sink.command({ ...command, sender });
          return { text: result.text, alert: result.status !== "done" };
        },
      );
      await outbound.answerCallback(main, parsed.callbackQueryId, answer.text, answer.alert);
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

/** A press with the presser's admin roles; a failure becomes an alert and a log line. */
async function answerPress(
  parts: UpdateDispatch,
  chat: ChatRef,
  userId: string,
  log: Logger,
  context: Record<string, string>,
  failure: string,
  press: (roles: string[]) => Promise<PressAnswer>,
): Promise<PressAnswer> {
  try {
    return await press(await parts.adminRoles.rolesOf(chat, userId));
  } catch (error) {
    log.error({ err: error, ...context }, failure);
    return { text: failedText, alert: true };
  }
}
