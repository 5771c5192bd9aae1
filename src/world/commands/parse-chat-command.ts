import { type ChatCommandName, isChatCommandName } from "./chat-commands.js";

/** A message that is a chat command, or a command meant for another bot. */
export type ParsedChatCommand =
  | { kind: "command"; name: ChatCommandName; args: string[] }
  /** `/stop@otherbot`: a command for someone else, left alone. */
  | { kind: "other-bot"; name: ChatCommandName; bot: string };

const commandPattern = /^\/([A-Za-z]+)(?:@([A-Za-z0-9_]+))?(?:[ \t]+([^\n]*))?$/;

/**
 * Reads a message of its own as a chat command: `/name`, `/name@bot` (where `bot` is one of
 * `botNames`, the names the adapter says this bot goes by) and arguments on the same line.
 * Undefined for everything else, unknown `/words` included: those are ordinary messages.
 */
export function parseChatCommand(text: string, botNames: readonly string[] = []): ParsedChatCommand | undefined {
  const match = commandPattern.exec(text.trim());
  if (!match) return undefined;
  const name = (match[1] ?? "").toLowerCase();
  if (!isChatCommandName(name)) return undefined;
  const bot = match[2];
  if (bot !== undefined && !botNames.some((candidate) => candidate.toLowerCase() === bot.toLowerCase())) {
    return { kind: "other-bot", name, bot };
  }
  const args = (match[3] ?? "").split(/\s+/).filter((word) => word !== "");
  return { kind: "command", name, args };
}
