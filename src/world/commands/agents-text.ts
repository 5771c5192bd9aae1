/** What `/agents` needs to know about a world. */
export interface AgentsListing {
  agents: readonly { name: string; description?: string | undefined }[];
  defaultAgent?: string | undefined;
  respond: "addressed" | "all";
}

/** `/agents`: a line per agent (its description when it has one) and how to address them. */
export function agentsText(world: AgentsListing): string {
  const lines = world.agents.map((agent) => {
    const description = agent.description === undefined || agent.description === "" ? "" : `: ${agent.description}`;
    const isDefault = agent.name === world.defaultAgent ? " (answers messages addressed to no one)" : "";
    return `- @${agent.name}${description}${isDefault}`;
  });
  const example = world.agents[0]?.name ?? "name";
  const how =
    world.respond === "all"
      ? "Every agent answers a message addressed to no one; @name at the start of a message asks only that agent."
      : `Address an agent with @name at the start of a message, e.g. "@${example} what changed today?".`;
  return [`Agents in this chat (${world.agents.length}):`, ...lines, how].join("\n");
}
