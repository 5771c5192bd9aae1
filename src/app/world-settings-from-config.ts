import type { AgentConfig, ChannelsConfig, Config, WorldConfig } from "../config/schema.js";
import type { ChatRef } from "../world/chat-ref.js";
import { createWorldDirectory } from "../world/ingress/world-directory.js";
import type { AgentSettings, ChatBindings, WorldSettings } from "../world/world-settings.js";

/** The world's view of a configured world. */
export function worldSettingsFrom(world: WorldConfig): WorldSettings {
  return {
    name: world.name,
    agents: [...world.agents],
    ...(world.defaultAgent === undefined ? {} : { defaultAgent: world.defaultAgent }),
    turnLimit: world.turnLimit,
    respond: world.respond,
    afterDenial: world.afterDenial,
    ...(world.workdir === undefined ? {} : { workdir: world.workdir }),
    approvers: world.approvers,
    members: world.members,
    approvalTimeout: world.approvalTimeout,
    ...(world.approvals.allowAlways ? { allowAlways: { forMs: world.approvals.allowAlwaysFor } } : {}),
    ...(Object.keys(world.approvals.quorum).length === 0 ? {} : { quorum: world.approvals.quorum }),
    ...(world.approvals.remind === undefined ? {} : { remindMs: world.approvals.remind }),
    ...(world.approvals.escalate === undefined
      ? {}
      : { escalate: { afterMs: world.approvals.escalate.after, to: world.approvals.escalate.to } }),
    ...cardRoutingFrom(world.approvals),
    ...(world.approvals.edit ? { editArguments: true } : {}),
    allowBots: world.allowBots,
    limits: {
      messagesPerMinute: world.limits.messagesPerMinute,
      ...(world.limits.tokensPerDay === undefined ? {} : { tokensPerDay: world.limits.tokensPerDay }),
      ...(world.limits.costPerDay === undefined ? {} : { costPerDay: world.limits.costPerDay }),
      ...(world.limits.costPerMonth === undefined ? {} : { costPerMonth: world.limits.costPerMonth }),
      ...(world.limits.tokensPerMonth === undefined ? {} : { tokensPerMonth: world.limits.tokensPerMonth }),
      ...(world.limits.perPerson === undefined ? {} : { perPerson: world.limits.perPerson }),
      ...(world.limits.perChat === undefined ? {} : { perChat: world.limits.perChat }),
      ...(world.limits.perAgent === undefined ? {} : { perAgent: world.limits.perAgent }),
      ...(world.limits.alerts === undefined ? {} : { alerts: world.limits.alerts }),
      ...(world.limits.overBudget === undefined ? {} : { overBudget: world.limits.overBudget }),
      ...(world.limits.raiseBy === undefined ? {} : { raiseBy: world.limits.raiseBy }),
    },
  };
}

/** `approvals.route` and `approvals.channel`, present only when a card goes anywhere but its chat. */
function cardRoutingFrom(approvals: WorldConfig["approvals"]): Pick<WorldSettings, "cardRouting"> {
  const { route, channel } = approvals;
  if (route === "chat" && channel === undefined) return {};
  return { cardRouting: { route, ...(channel === undefined ? {} : { channel }) } };
}

/** The world's view of a configured agent: identity in chats (display name defaults to the name) and limits. */
export function agentSettingsFrom(agent: AgentConfig): AgentSettings {
  return {
    name: agent.name,
    displayName: agent.displayName ?? agent.name,
    ...(agent.avatarUrl === undefined ? {} : { avatarUrl: agent.avatarUrl }),
    ...(agent.description === undefined ? {} : { description: agent.description }),
    limits: { ...agent.limits },
  };
}

/** Which world each platform's chats belong to (`channels.<platform>.chats`). */
export function chatBindingsFrom(channels: ChannelsConfig): ChatBindings {
  const bindings: ChatBindings = {};
  for (const platform of ["telegram", "slack", "discord"] as const) {
    const chats = channels[platform]?.chats;
    if (chats !== undefined) bindings[platform] = chats;
  }
  return bindings;
}

/**
 * Whether the platform may fetch previews of links in posts to a chat: only where the chat's
 * world sets `linkPreviews: true`. Off by default, since a preview fetch of a link an agent was
 * tricked into writing sends data out without anyone clicking.
 */
export function linkPreviewsFrom(config: Config): (chat: ChatRef) => boolean {
  const allowing = new Set(config.worlds.filter((world) => world.linkPreviews).map((world) => world.name));
  if (allowing.size === 0) return () => false;
  const directory = createWorldDirectory(
    config.worlds.map(worldSettingsFrom),
    chatBindingsFrom(config.channels),
    new Set(["console", "web"]),
  );
  return (chat) => {
    const world = directory.worldFor(chat);
    return world !== undefined && allowing.has(world.name);
  };
}
