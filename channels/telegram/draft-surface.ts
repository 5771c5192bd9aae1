import { randomInt } from "node:crypto";
import { GrammyError } from "grammy";
import type { ChatRef, DraftSurface } from "../../src/world/channel-adapter.js";
import type { BotHandle, TelegramOutbound } from "./api.js";
import type { TelegramPart } from "./render.js";

/**
 * The part of a streamed answer being written, shown as a native draft (`sendMessageDraft`,
 * private chats): one draft id per answer, the same part never shown twice. A server that
 * does not know the method is reported through `unsupported` (so that later answers ask for
 * no draft) and the refusal thrown: the world's stream then edits messages instead.
 */
export function draftSurface(
  outbound: TelegramOutbound,
  bot: BotHandle,
  chat: ChatRef,
  told: { showing(): void; unsupported(): void },
): DraftSurface<TelegramPart> {
  const draftId = randomInt(1, 2 ** 31 - 1);
  let shown: string | undefined;
  return {
    async show(part) {
      if (part.html === shown) return;
      told.showing();
      try {
        await outbound.draft(bot, chat, draftId, part.html);
      } catch (error) {
        const cause = error instanceof Error ? error.cause : undefined;
        if (cause instanceof GrammyError && (cause.error_code === 404 || /method not found/i.test(cause.description))) {
          told.unsupported();
        }
        throw error;
      }
      shown = part.html;
    },
  };
}
