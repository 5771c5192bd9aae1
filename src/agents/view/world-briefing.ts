import type { Platform } from "../../world/chat-ref.js";

/** What the briefing tells one agent about the room it is in. */
export interface RoomFacts {
  /** The agent the view is for. */
  self: string;
  world: string;
  /** The world's agents in configured order, with their `description` when they have one. */
  agents: ReadonlyArray<{ name: string; description?: string }>;
  /** People seen in the chat's recent history, by the name they post under. */
  people: readonly string[];
  platform: Platform;
}

/** The heading the briefing starts with, so a reader of the system prompt can find it. */
const briefingHeading = "## The room";

/**
 * The short world briefing that follows an agent's own system prompt in every request view
 * (docs/architecture.md, "Agents know the room"): who is here and how to address them, how
 * turns pass between agents, and how the platform shows text. Built fresh for each view and
 * never stored, so it is measured in the view's budget like the rest of the system prompt.
 */
export function worldBriefing(room: RoomFacts): string {
  const agentLines = room.agents.map((agent) => {
    const who = agent.name === room.self ? `@${agent.name} (you)` : `@${agent.name}`;
    return `- ${who}${agent.description === undefined ? "" : `: ${agent.description}`}`;
  });
  const people = room.people.filter((name) => !room.agents.some((agent) => agent.name === name));
  const peopleLine =
    people.length === 0
      ? "People here: none have written yet in this chat."
      : `People here: ${people.map((name) => `@${name}`).join(", ")}.`;
  return [
    briefingHeading,
    `You are @${room.self}, an agent in the world "${room.world}", in a chat on ${platformNames[room.platform]}.`,
    "Agents here:",
    ...agentLines,
    peopleLine,
    "Messages reach you as `name: text`. To address someone, start a line with @name.",
    "Addressing another agent hands it the turn: it answers next, and you wait for it.",
    "Your answer to a message from another agent goes back to that agent automatically unless it addresses someone else; so a report meant for a person should start with @ and that person's name.",
    `Formatting: ${platformFormatting[room.platform]}`,
  ].join("\n");
}

const platformNames: Record<Platform, string> = {
  slack: "Slack",
  telegram: "Telegram",
  discord: "Discord",
  console: "a terminal",
  web: "the web console",
};

const platformFormatting: Record<Platform, string> = {
  slack:
    "write Markdown (bold, italic, lists, `code`, code blocks, links); it is shown as Slack formatting. No tables or headings; keep messages short.",
  telegram:
    "write Markdown (bold, italic, `code`, code blocks, links); it is shown as Telegram formatting. No tables or headings; long messages are split at 4,096 characters.",
  discord:
    "Discord shows Markdown (bold, italic, lists, headings, `code`, code blocks); no tables. Messages over 2,000 characters are split.",
  console: "plain text in a terminal; Markdown is shown as typed, so keep it light.",
  web: "Markdown (bold, italic, lists, `code`, code blocks, links) is shown formatted.",
};
