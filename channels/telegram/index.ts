export { TelegramAdapter } from "./adapter.js";
export type {
  TelegramAdapterOptions,
  TelegramAgentBot,
  TelegramClock,
  TelegramRetryOptions,
  TelegramThrottleOptions,
} from "./options.js";
export { systemClock } from "./options.js";
export { telegramWebhookPath } from "./webhook-route.js";
