/**
 * The one error base class. `code` is stable (tests and logs key on it), `userMessage` is
 * safe to show in a chat (never a stack trace, never a secret), `cause` keeps the origin.
 * The codes are exactly the ones thrown (`tests/lint/error-codes.test.ts`).
 */
export type ErrorCode =
  | "config.invalid"
  | "config.not-found"
  | "storage.failed"
  | "storage.conflict"
  | "storage.database-in-use"
  | "platform.refused"
  | "platform.network"
  | "provider.rate-limited"
  | "provider.auth"
  | "provider.context-too-long"
  | "provider.content-refused"
  | "provider.server"
  | "provider.invalid-request"
  | "provider.network"
  | "provider.malformed"
  | "provider.aborted"
  | "tool.failed"
  | "approval.unknown"
  | "http.body-refused"
  | "internal";

export interface RoundtableErrorOptions {
  cause?: unknown;
  userMessage?: string;
}

export class RoundtableError extends Error {
  readonly code: ErrorCode;
  readonly userMessage: string;

  constructor(code: ErrorCode, message: string, options: RoundtableErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.userMessage = options.userMessage ?? message;
  }
}

/** A configuration file (or the environment) does not say what is expected. */
export class ConfigError extends RoundtableError {
  constructor(message: string, options: RoundtableErrorOptions = {}) {
    super("config.invalid", message, options);
  }
}

export interface PlatformApiErrorOptions extends RoundtableErrorOptions {
  /** The API method that refused (`chat.postMessage`, `sendMessage`), or what the call was for. */
  method: string;
  /** When the platform said to try again (a rate limit). */
  retryAfterMs?: number;
  /** Whether the same call may succeed later (a rate limit, a server error); default: when `retryAfterMs` is set. */
  retryable?: boolean;
}

/**
 * A platform API (Slack, Telegram, Discord) refused a call: which `method`, whether it is
 * `retryable`, and `retryAfterMs` when the platform said when to retry.
 */
export class PlatformApiError extends RoundtableError {
  readonly method: string;
  readonly retryAfterMs: number | undefined;
  readonly retryable: boolean;
  constructor(message: string, options: PlatformApiErrorOptions) {
    super("platform.refused", message, options);
    this.method = options.method;
    this.retryAfterMs = options.retryAfterMs;
    this.retryable = options.retryable ?? options.retryAfterMs !== undefined;
  }
}

/** A network failure talking to a platform. */
export class NetworkError extends RoundtableError {
  constructor(message: string, options: RoundtableErrorOptions = {}) {
    super("platform.network", message, options);
  }
}

/** A model provider failed; `transient` ones are retried with backoff. */
export type ProviderErrorCode = Extract<ErrorCode, `provider.${string}`>;
export class ProviderError extends RoundtableError {
  readonly retryAfterMs: number | undefined;
  readonly transient: boolean;
  constructor(
    code: ProviderErrorCode,
    message: string,
    options: RoundtableErrorOptions & { retryAfterMs?: number; transient?: boolean } = {},
  ) {
    super(code, message, options);
    this.retryAfterMs = options.retryAfterMs;
    this.transient =
      options.transient ??
      (code === "provider.rate-limited" || code === "provider.server" || code === "provider.network");
  }
}

/** A tool could not run or failed. */
export class ToolError extends RoundtableError {}

/** A storage operation failed. */
export class StorageError extends RoundtableError {}

/** Narrowing helper for `catch (error: unknown)`. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
