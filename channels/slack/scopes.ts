/** A bot token scope the service uses, and what breaks without it. */
export interface ScopeNeed {
  scope: string;
  feature: string;
}

/** Every bot scope of the app manifest (`commands` aside: the slash command shows its own), with the feature it serves. */
export const scopeNeeds: readonly ScopeNeed[] = [
  { scope: "chat:write", feature: "posting answers and approval cards" },
  // The history scopes also let a re-run after a crash find a post it made (conversations.history).
  { scope: "channels:history", feature: "reading messages in public channels; finding a post made before a crash" },
  { scope: "groups:history", feature: "reading messages in private channels; finding a post made before a crash" },
  { scope: "im:history", feature: "reading direct messages; finding a post made before a crash" },
  {
    scope: "mpim:history",
    feature: "reading group direct messages; finding a post made before a crash",
  },
  { scope: "app_mentions:read", feature: "answering @mentions of the app" },
  {
    scope: "chat:write.customize",
    feature: "posting under each agent's name and icon (without it, answers start with the agent's name in bold)",
  },
  { scope: "files:read", feature: "passing files and screenshots people share on to the agents" },
  {
    scope: "files:write",
    feature:
      "posting the images and files tools give (files.uploadV2); attaching long tool arguments to approval cards",
  },
  { scope: "usergroups:read", feature: "approvers named as role:<user group handle>" },
  { scope: "users:read", feature: "showing people's names instead of user ids" },
  { scope: "assistant:write", feature: 'showing "alice is thinking…" while an agent works in an assistant thread' },
];

/** The bot scopes of channels/slack/manifest.yaml (`commands` included): what "Add to Slack" asks for by default. */
export const manifestScopes: readonly string[] = [...scopeNeeds.map((need) => need.scope), "commands"];

/** The scopes the app lacks, each with the feature that does not work without it. */
export function missingScopes(granted: readonly string[]): ScopeNeed[] {
  const have = new Set(granted);
  return scopeNeeds.filter((need) => !have.has(need.scope));
}

/** One line for logs and `roundtable check`. */
export function describeMissingScopes(missing: readonly ScopeNeed[]): string {
  return missing.map((need) => `${need.scope} (${need.feature})`).join("; ");
}

/** How to get a scope: the same steps for every one. */
export const addScopeHint =
  "add it under OAuth & Permissions → Bot Token Scopes at api.slack.com/apps (or paste channels/slack/manifest.yaml), then reinstall the app";
