import type { FakeUser, Json } from "./telegram-messages.js";

/** What the fake Telegram Bot API is set up with, what it records of each call, and the failures it can be told to answer. */

export interface FakeBotSetup {
  token: string;
  username: string;
  firstName?: string;
  /** False means privacy mode is on (the default for new bots on Telegram). */
  canReadAllGroupMessages?: boolean;
}

export interface RecordedCall {
  token: string;
  method: string;
  params: Record<string, unknown>;
  ok: boolean;
  errorCode?: number;
  /** What the call answered when it succeeded. */
  result?: unknown;
  /** The caller's TCP port (the chaos harness maps it to the process that sent the call). */
  remotePort?: number;
}

export interface InjectedFailure {
  error_code: number;
  description: string;
  retry_after?: number;
  /**
   * Answer this instead of a Bot API refusal: what a proxy or an emulator written by others may
   * send (`error_code` is then the HTTP status), e.g. a bare `502 Bad Gateway` page or `{"error": …}`.
   */
  raw?: { body: string; contentType?: string };
}

/** One bot's state in the fake: its identity, pending updates and confirmed offset, webhook and waiting polls. */
export interface BotState {
  setup: FakeBotSetup;
  user: FakeUser;
  updates: Json[];
  nextUpdateId: number;
  confirmedOffset: number;
  webhook?: { url: string; secret_token?: string };
  waiters: Set<() => void>;
  activePoll?: () => void;
}
