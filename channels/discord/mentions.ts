import type { DiscordMessage } from "./gateway-schema.js";

/** Who is who, so that Discord's `<@id>`, `<@&id>` and `<#id>` can be read as world names. */
export interface MentionDirectory {
  /** The main bot's user id. */
  botUserId: string;
  /** The agent named after the bot (its username or display name), if any. */
  botAgent?: string;
  /** Agents' own bots by user id. */
  agentBotsById: ReadonlyMap<string, string>;
  /** Agent names by lower-case name and lower-case display name. */
  agentNames: ReadonlyMap<string, string>;
  /** A guild role's name by id. */
  roleName(guildId: string | undefined, roleId: string): string | undefined;
  /** Does the role carry the Administrator permission? */
  roleIsAdministrator(guildId: string | undefined, roleId: string): boolean;
  /** A channel's name by id. */
  channelName(channelId: string): string | undefined;
}

export function emptyMentionDirectory(): MentionDirectory {
  return {
    botUserId: "",
    agentBotsById: new Map(),
    agentNames: new Map(),
    roleName: () => undefined,
    roleIsAdministrator: () => false,
    channelName: () => undefined,
  };
}

const mentionPattern = /<@!?(\d+)>|<@&(\d+)>|<#(\d+)>/g;

/** The name of a mentioned person: their handle (username), as people address each other. */
function personName(message: DiscordMessage, userId: string): string | undefined {
  return message.mentions.find((user) => user.id === userId)?.username;
}

/**
 * Discord mention syntax as `@name`: the bot becomes the agent named after it (or, at the
 * start of the text with no such agent, disappears: the message then goes to the default
 * agent), agents' own bots their agent, people their username, roles their name (`@ops`, or
 * the agent of that name), channels `#name`.
 */
export function resolveMentions(
  message: DiscordMessage,
  directory: MentionDirectory,
): { text: string; mentions: string[] } {
  const text = message.content;
  const mentions: string[] = [];
  let out = "";
  let cursor = 0;
  for (const match of text.matchAll(mentionPattern)) {
    const start = match.index;
    out += text.slice(cursor, start);
    cursor = start + match[0].length;
    const [, userId, roleId, channelId] = match;
    if (userId !== undefined) {
      if (userId === directory.botUserId) {
        if (directory.botAgent !== undefined) {
          out += `@${directory.botAgent}`;
          mentions.push(directory.botAgent);
        } else if (out.trim() === "") {
          // "@Roundtable hi" speaks to the service: the name goes, the default agent answers.
          out = "";
          while (text[cursor] === " " || text[cursor] === ",") cursor += 1;
        } else {
          out += "@roundtable";
        }
        continue;
      }
      const name = directory.agentBotsById.get(userId) ?? personName(message, userId) ?? `user-${userId}`;
      out += `@${name}`;
      mentions.push(name);
      continue;
    }
    if (roleId !== undefined) {
      const role = directory.roleName(message.guild_id, roleId) ?? `role-${roleId}`;
      const name = directory.agentNames.get(role.toLowerCase()) ?? role;
      out += `@${name}`;
      mentions.push(name);
      continue;
    }
    out += `#${directory.channelName(channelId ?? "") ?? channelId}`;
  }
  out += text.slice(cursor);
  return { text: out, mentions };
}
