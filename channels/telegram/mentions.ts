import type { TelegramEntity } from "./update-schema.js";

/** Who the bots are, so that Telegram mentions can be read as world names. */
export interface MentionDirectory {
  /** The main bot's username; a mention of it addresses the service, not an agent, and is removed. */
  mainBotUsername?: string;
  /** The main bot's user id: its own messages coming back are echoes. */
  mainBotId?: number;
  /** Agent bots by lower-case username and by user id. */
  agentBotsByUsername: ReadonlyMap<string, string>;
  agentBotsById: ReadonlyMap<number, string>;
  /** Agent names by lower-case name, so `@Alice` reads as `@alice`. */
  agentNames: ReadonlyMap<string, string>;
}

export function emptyMentionDirectory(): MentionDirectory {
  return { agentBotsByUsername: new Map(), agentBotsById: new Map(), agentNames: new Map() };
}

/**
 * Telegram's mention entities as `@name`: an agent bot's `@alice_bot` becomes `@alice`, a
 * text mention of a user without a username becomes `@` + the linked text. Offsets are UTF-16,
 * as JavaScript strings are.
 */
export function resolveMentions(
  text: string,
  entities: readonly TelegramEntity[],
  directory: MentionDirectory,
): { text: string; mentions: string[] } {
  const spans = entities
    .filter((entity) => entity.type === "mention" || entity.type === "text_mention")
    .toSorted((left, right) => left.offset - right.offset);
  let out = "";
  let cursor = 0;
  const mentions: string[] = [];
  for (const entity of spans) {
    const end = entity.offset + entity.length;
    if (entity.offset < cursor || end > text.length) continue;
    out += text.slice(cursor, entity.offset);
    cursor = end;
    const spanText = text.slice(entity.offset, end);
    if (entity.type === "mention") {
      const username = spanText.replace(/^@/, "");
      const lower = username.toLowerCase();
      if (directory.mainBotUsername !== undefined && lower === directory.mainBotUsername.toLowerCase()) {
        // "@roundtable_bot hi" is addressed to the service, not to an agent: drop the name.
        // Further in, it is a reference to the bot and stays as written.
        if (out.trim() === "") {
          out = "";
          while (text[cursor] === " ") cursor += 1;
        } else {
          out += spanText;
        }
        continue;
      }
      const name = directory.agentBotsByUsername.get(lower) ?? directory.agentNames.get(lower) ?? username;
      out += `@${name}`;
      mentions.push(name);
      continue;
    }
    const user = entity.user;
    const agent = user ? directory.agentBotsById.get(user.id) : undefined;
    const name = agent ?? user?.username ?? spanText.replace(/^@/, "");
    out += `@${name}`;
    mentions.push(name);
  }
  out += text.slice(cursor);
  return { text: out, mentions };
}
