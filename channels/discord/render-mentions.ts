import { type OutboundMention, splitByMentions } from "../../src/world/channel-adapter.js";

/** Outbound text with Discord mentions in place, and the people those may notify. */
export interface RenderedMentions {
  text: string;
  /** User ids the message may ping (`allowed_mentions.users`); nobody else is pinged. */
  userIds: string[];
}

/**
 * The world's structured mentions as Discord's own: a person becomes `<@id>`, an agent with
 * its own bot `<@bot id>`; an agent posting through the webhook or the bot keeps `@name`
 * (typed `@name` is how Roundtable addresses agents, and a webhook cannot be pinged).
 */
export function renderMentions(
  text: string,
  mentions: readonly OutboundMention[] | undefined,
  agentBotUserId: (agent: string) => string | undefined,
): RenderedMentions {
  if (!mentions || mentions.length === 0) return { text, userIds: [] };
  const userIds = new Set<string>();
  let out = "";
  for (const segment of splitByMentions(text, mentions)) {
    if (segment.kind === "text") {
      out += segment.text;
      continue;
    }
    const target = segment.mention.target;
    const id = target.kind === "person" ? target.id : agentBotUserId(target.name);
    if (id !== undefined && /^\d{1,25}$/.test(id)) {
      out += `<@${id}>`;
      userIds.add(id);
    } else {
      out += segment.mention.text;
    }
  }
  return { text: out, userIds: [...userIds] };
}
