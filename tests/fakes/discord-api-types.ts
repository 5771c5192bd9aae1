import type { Json } from "./discord-state.js";

/** What the fake Discord is set up with, what it records of each REST call, and the failures it can be told to answer. */

export interface FakeBotSetup {
  token: string;
  username: string;
  /** Application flags (`GET /applications/@me`); default: message content intent granted. */
  flags?: number;
}

export interface RecordedRestCall {
  method: string;
  path: string;
  query: string;
  token: string | undefined;
  body: unknown;
  files: { filename: string; content: string }[];
  status: number;
}

export interface InjectedFailure {
  method: string;
  pattern: RegExp;
  times: number;
  status: number;
  body: Json;
  headers: Record<string, string>;
  /** Carry the call out first, then answer with the failure: Discord took it, the answer was lost. */
  afterDoing?: boolean;
  /** Cut the connection instead of answering (ECONNRESET on the caller's side). */
  reset?: boolean;
}

/** A server-side fault (`FakeDiscord.faultNext`): a 5xx, or a cut connection; before or after carrying the call out. */
export interface DiscordFault {
  /** Default 502 (Bad Gateway, Cloudflare's page in front of Discord). */
  status?: number;
  reset?: boolean;
  afterDoing?: boolean;
}
