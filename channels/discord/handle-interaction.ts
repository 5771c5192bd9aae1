import { assertNever } from "../../src/errors/assert-never.js";
import type { Logger } from "../../src/log/logger.js";
import type { ChatRef, InboundSink } from "../../src/world/channel-adapter.js";
import type { ChatLocator } from "./chat-locator.js";
import type { ClickAnswerer } from "./click-answerer.js";
import type { MentionDirectory } from "./mentions.js";
import { channelIdOf, parseInteraction } from "./parse.js";
import { inputModal } from "./input-modal.js";

/** What answering a gateway interaction needs from the connected adapter. */
export interface InteractionContext {
  sink: InboundSink;
  locator: ChatLocator;
  answerer: ClickAnswerer;
  /** Read when the press is parsed: the directory is rebuilt on (re)connect. */
  directory: () => MentionDirectory;
  logger: Logger;
}

/** One button press or slash command: parsed, handed to the world and answered within 3 seconds. */
export async function handleInteraction(payload: unknown, context: InteractionContext): Promise<void> {
  const { sink, locator, answerer, directory, logger } = context;
  const { channelId, guildId } = channelIdOf(payload);
  let chat: ChatRef;
  try {
    chat =
      channelId === undefined ? { platform: "discord", channel: "unknown" } : await locator.chatOf(channelId, guildId);
  } catch (error) {
    logger.warn({ err: error, channel: channelId }, "discord interaction's channel could not be read");
    chat = { platform: "discord", channel: channelId ?? "unknown" };
  }
  const parsed = parseInteraction(payload, chat, directory());
  switch (parsed.kind) {
    case "click":
      await answerer.answer(parsed.interaction, () => sink.click(parsed.click), parsed.click.approvalId);
      return;
    case "ask":
      await answerer.showModal(parsed.interaction, inputModal(parsed.ask));
      return;
    case "command":
      await answerer.answerCommand(parsed.interaction, () => sink.command(parsed.command), parsed.command.name);
      return;
    case "bad-click":
      logger.warn({ reason: parsed.reason }, "discord button press refused");
      await answerer.refuse(parsed.interaction);
      return;
    case "ignored":
      logger.debug({ reason: parsed.reason }, "discord interaction ignored");
      return;
    case "invalid":
      logger.warn({ reason: parsed.reason }, "malformed discord interaction skipped");
      return;
    default:
      assertNever(parsed, "parsed interaction");
  }
}
