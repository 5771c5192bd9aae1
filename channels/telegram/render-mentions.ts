import { type OutboundMention, splitByMentions } from "../../src/world/channel-adapter.js";

/** Markdown link text must not end the link early. */
function linkText(name: string): string {
  return name.replaceAll(/[[\]]/g, "");
}

/**
 * Outbound Markdown with each structured mention as Telegram shows one: a person with a
 * username as `@username` (Telegram links it), a person without one as a text mention
 * (`tg://user?id=…`, which notifies them), an agent with its own bot as that bot's
 * `@username`, any other agent as `@name`.
 */
export function withTelegramMentions(
  markdown: string,
  mentions: readonly OutboundMention[] | undefined,
  agentBotUsername: (agent: string) => string | undefined,
): string {
  if (mentions === undefined || mentions.length === 0) return markdown;
  return splitByMentions(markdown, mentions)
    .map((segment) => {
      if (segment.kind === "text") return segment.text;
      const target = segment.mention.target;
      if (target.kind === "agent") {
        const username = agentBotUsername(target.name);
        return username === undefined ? segment.mention.text : `@${username}`;
      }
      if (target.handle !== undefined) return `@${target.handle}`;
      if (!/^\d+$/.test(target.id)) return segment.mention.text;
      return `[${linkText(target.name)}](tg://user?id=${target.id})`;
    })
    .join("");
}
