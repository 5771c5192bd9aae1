import { scopeNeeds } from "./scopes.js";

// Slack's Agent messaging experience (manifest `features.agent_view`): conversations with the
// app live in its Messages tab, a thread per conversation; opening that tab arrives as
// `app_home_opened` with `tab: "messages"`, where the app sets its suggested prompts
// (`assistant.threads.setSuggestedPrompts`). Also what a manifest must hold for the config in
// use, for the manifest test and `roundtable check` (docs/slack.md, "Agent view").

/** A prompt shown above the composer of the app's Messages tab. */
export interface SuggestedPrompt {
  title: string;
  message: string;
}

/** What the prompts are made of: the world's agents. */
export interface PromptAgent {
  name: string;
  displayName?: string;
  description?: string;
}

/** Slack shows at most four suggested prompts. */
const maxPrompts = 4;
const maxTitle = 75;

/** One prompt per agent (at most four): its name and what it is for, addressed to it. */
export function suggestedPrompts(agents: readonly PromptAgent[]): SuggestedPrompt[] {
  return agents.slice(0, maxPrompts).map((agent) => {
    const name = agent.displayName ?? agent.name;
    const title = agent.description ? `${name}: ${agent.description}` : `Ask ${name}`;
    return {
      title: title.length > maxTitle ? `${title.slice(0, maxTitle - 1)}…` : title,
      message: `@${agent.name} what can you do for me?`,
    };
  });
}

/** The events the adapter listens to; `app_home_opened` only with Agent view, the uninstall events only with Add to Slack. */
export function eventsUsed(uses: { agentView: boolean; oauth?: boolean }): string[] {
  return [
    "app_mention",
    "message.channels",
    "message.groups",
    "message.im",
    "message.mpim",
    ...(uses.agentView ? ["app_home_opened"] : []),
    ...(uses.oauth ? ["app_uninstalled", "tokens_revoked"] : []),
  ];
}

/** Every bot scope the code calls for (the slash command's `commands` included). */
export function scopesUsed(): string[] {
  return [...scopeNeeds.map((need) => need.scope), "commands"];
}

/** The parts of a manifest this code reads (the rest is Slack's; see `@slack/web-api`'s `Manifest`). */
interface ManifestShape {
  features?: { agent_view?: { agent_description?: string }; slash_commands?: { command: string }[] };
  oauth_config?: { scopes?: { bot?: string[] } };
  settings?: { event_subscriptions?: { bot_events?: string[] }; interactivity?: { is_enabled?: boolean } };
}

/** What `manifest` lacks of what the config uses, one phrase each (empty when nothing). */
export function manifestGaps(manifest: unknown, uses: { agentView: boolean; oauth?: boolean }): string[] {
  const shape = (typeof manifest === "object" && manifest !== null ? manifest : {}) as ManifestShape;
  const gaps: string[] = [];
  const scopes = new Set(shape.oauth_config?.scopes?.bot ?? []);
  const missingScopes = scopesUsed().filter((scope) => !scopes.has(scope));
  if (missingScopes.length > 0) gaps.push(`bot scopes ${missingScopes.join(", ")}`);
  const events = new Set(shape.settings?.event_subscriptions?.bot_events ?? []);
  const missingEvents = eventsUsed(uses).filter((event) => !events.has(event));
  if (missingEvents.length > 0) gaps.push(`bot events ${missingEvents.join(", ")}`);
  if (shape.settings?.interactivity?.is_enabled !== true) gaps.push("interactivity (the approval buttons)");
  if (!(shape.features?.slash_commands ?? []).some((command) => command.command === "/roundtable")) {
    gaps.push("the /roundtable slash command");
  }
  if (uses.agentView && !shape.features?.agent_view?.agent_description) {
    gaps.push("features.agent_view with an agent_description (channels.slack.agentView is on)");
  }
  return gaps;
}
