export { DiscordAdapter } from "./adapter.js";
export { hasMessageContentIntent, messageContentAdvice } from "./message-content-intent.js";
export type { DiscordAdapterOptions, DiscordAgentIdentity, DiscordClock } from "./options.js";
export { systemClock } from "./options.js";
