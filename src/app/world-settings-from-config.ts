import type { AgentConfig, ChannelsConfig, WorldConfig } from "../config/schema.js";
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
    allowBots: world.allowBots,
    limits: {
      messagesPerMinute: world.limits.messagesPerMinute,
      ...(world.limits.tokensPerDay === undefined ? {} : { tokensPerDay: world.limits.tokensPerDay }),
      ...(world.limits.costPerDay === undefined ? {} : { costPerDay: world.limits.costPerDay }),
    },
  };
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
