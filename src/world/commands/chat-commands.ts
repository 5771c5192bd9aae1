/** The chat commands, the same on every platform. */
export type ChatCommandName = "stop" | "agents" | "approvals" | "usage" | "rules" | "reset" | "help";

/** A command as menus list it (Telegram `setMyCommands`, Slack's `/roundtable`, Discord's commands). */
export interface ChatCommandInfo {
  name: ChatCommandName;
  /** One short line (Telegram allows 256 characters; Discord 100). */
  description: string;
}

export const chatCommands: readonly ChatCommandInfo[] = [
  { name: "stop", description: "Stop the agents' unfinished turns in this chat now" },
  { name: "agents", description: "The agents in this chat and how to address them" },
  { name: "approvals", description: "Pending approvals in this chat, oldest first" },
  {
    name: "usage",
    description: "Your, this chat's and the world's model usage today and this month, against the budgets",
  },
  { name: "rules", description: "This world's stored Always allow rules; /rules revoke <id> ends one" },
  { name: "reset", description: "End this chat's session approvals and close pending requests" },
  { name: "help", description: "What the commands do" },
];

const names = new Set<string>(chatCommands.map((command) => command.name));

export function isChatCommandName(name: string): name is ChatCommandName {
  return names.has(name);
}
