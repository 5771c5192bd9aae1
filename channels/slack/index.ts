export { SlackAdapter } from "./adapter.js";
export { slackEventsPath } from "./http-receiver.js";
export type { SlackAdapterOptions, SlackAgentIdentity, SlackClock, SlackStreamMode } from "./options.js";
export { systemClock } from "./options.js";
export type { ReplyIn } from "./parse.js";
export { addScopeHint, describeMissingScopes, missingScopes, scopeNeeds } from "./scopes.js";
