import { autonomousLine } from "../autonomous/autonomous-run-store.js";
import type { ChatRef } from "../chat-ref.js";
import type { Author, WorldMessage } from "../message.js";
import type { MentionTarget, OutboundMention } from "./outbound-mention.js";
import type { OutboundText } from "../outbound-text.js";
import type { MessageRecord } from "../records.js";
import { maskLiteralText } from "../routing/mask-literal-text.js";
import type { WorldContext } from "../world-context.js";
import { isPersonEntry } from "../access/access-list.js";

/** How many recent messages are searched for the people a text names. */
const peopleWindow = 500;

const mentionPattern = /(?<![\p{L}\p{N}_@-])@([\p{L}\p{N}_][\p{L}\p{N}_.-]*[\p{L}\p{N}_]|[\p{L}\p{N}_])/gu;

/**
 * A stored message as a channel should post it: an agent's configured identity on the author,
 * and every `@name` that names an agent of the chat's world or a person seen in the chat as a
 * structured mention the adapter renders natively.
 */
export async function outboundFor(context: WorldContext, chat: ChatRef, message: WorldMessage): Promise<OutboundText> {
  // A schedule's or trigger's run shows one line naming it; its prompt is for the agent.
  const text = autonomousLine(message.author) ?? message.text;
  const listed = message.author.kind === "system" ? listedPeople(context, chat) : undefined;
  const mentions = await findMentions(context, chat, message.chatKey, text, listed);
  return {
    author: withIdentity(context, message.author),
    text,
    ...(mentions.length === 0 ? {} : { mentions }),
  };
}

/** An agent author with its configured display name and picture; anyone else as stored. */
export function withIdentity(context: Pick<WorldContext, "agents">, author: Author): Author {
  if (author.kind !== "agent") return author;
  const settings = context.agents.get(author.id) ?? context.agents.get(author.name);
  if (!settings) return author;
  // A display name equal to the name says nothing: the adapter may know better (its own identities).
  return {
    ...author,
    ...(settings.displayName === author.name ? {} : { displayName: settings.displayName }),
    ...(settings.avatarUrl === undefined ? {} : { avatarUrl: settings.avatarUrl }),
  };
}

async function findMentions(
  context: WorldContext,
  chat: ChatRef,
  chatKey: string,
  text: string,
  listed?: ReadonlySet<string>,
): Promise<OutboundMention[]> {
  if (!text.includes("@")) return [];
  const names = new Set<string>();
  for (const match of maskLiteralText(text).matchAll(mentionPattern)) if (match[1]) names.add(match[1]);
  if (names.size === 0) return [];
  const world = context.worlds.worldFor(chat);
  const agentsByName = new Map<string, MentionTarget>();
  for (const agent of world?.agents ?? []) {
    const settings = context.agents.get(agent);
    agentsByName.set(agent.toLowerCase(), { kind: "agent", name: agent, displayName: settings?.displayName ?? agent });
  }
  let people: Map<string, MentionTarget> | undefined;
  const mentions: OutboundMention[] = [];
  for (const name of names) {
    let target = agentsByName.get(name.toLowerCase());
    if (!target) {
      people ??= peopleByName(await context.store.listMessages(chatKey, { latest: peopleWindow }));
      target = people.get(name.toLowerCase());
    }
    // The world's own notices name deciders by id (a reminder, an escalation): a real mention.
    if (!target && listed?.has(name)) target = { kind: "person", id: name, name };
    if (target) mentions.push({ text: `@${name}`, target });
  }
  return mentions;
}

/** The ids the chat's world lists for its platform (approvers, `approvals.escalate.to`), one person each. */
function listedPeople(context: WorldContext, chat: ChatRef): ReadonlySet<string> {
  const world = context.worlds.worldFor(chat);
  const entries = [...(world?.approvers[chat.platform] ?? []), ...(world?.escalate?.to[chat.platform] ?? [])];
  return new Set(entries.filter(isPersonEntry));
}

/** The people of a chat by lower-case name and handle; the newest message wins. */
function peopleByName(messages: readonly MessageRecord[]): Map<string, MentionTarget> {
  const people = new Map<string, MentionTarget>();
  for (const message of messages) {
    const author = message.author;
    if (author.kind !== "human") continue;
    const target: MentionTarget = {
      kind: "person",
      id: author.id,
      name: author.name,
      ...(author.handle === undefined ? {} : { handle: author.handle }),
    };
    people.set(author.name.toLowerCase(), target);
    if (author.handle !== undefined) people.set(author.handle.toLowerCase(), target);
  }
  return people;
}
