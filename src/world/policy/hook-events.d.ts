/**
 * The public types of a policy module (`hooks.module`, docs/hooks.md): what `onEvent` is given
 * and may return. Users import them with `import type { … } from "roundtable/hooks"` (the
 * package's `exports` entry points here); the service builds and checks the same shapes.
 */

/** Where an event happened: the chat's platform, its id (channel) and its thread, if any. */
export interface HookChat {
  /** `slack`, `telegram`, `discord`, `console` or `web`. */
  platform: string;
  /** The chat's id on its platform (a Slack or Discord channel id, a Telegram chat id). */
  id: string;
  /** A Slack thread, Telegram forum topic or Discord thread, when the chat is one. */
  thread?: string;
}

/** A file of a message, described (the bytes are not handed to hooks). */
export interface HookFile {
  name: string;
  /** The type found from the bytes, for example `image/png`. */
  mediaType: string;
  /** Its size in bytes. */
  bytes: number;
}

/** A stored message as hooks see it (also what `context.history(n)` returns). */
export interface HookMessage {
  /** The stored message's id (stable: a re-run after a crash sees the same one). */
  id: string;
  senderName: string;
  /** The sender's platform id (absent for the world's own notices). */
  senderId?: string;
  /** Plain text; platform mentions are `@name`. */
  text: string;
  files: HookFile[];
  /** The agents (and names) the message addresses with `@name` at the start of a paragraph. */
  addressed: string[];
}

/**
 * `message`: a stored message that would be routed, before routing and before any model call.
 * Return it with a changed `text` or `addressed` to change what routing and later views see.
 */
export interface MessageEvent {
  type: "message";
  /** Who wrote it: a person, an agent, or the world (a notice or a programmatic `system` message). */
  createdBy: "user" | "agent" | "system";
  /** The world's name. */
  world: string;
  chat: HookChat;
  message: HookMessage;
}

/** One call of a model step, as the configured policy decided it. */
export interface HookToolCall {
  /** The stored call's id. */
  id: string;
  /** The tool's name (`shell_cmd`, `<server>__<tool>`). */
  name: string;
  /** The call's arguments as the model sent them (a JSON value; the raw text when it is not JSON). */
  arguments: unknown;
  /**
   * What the configured policy decided: `never` runs at once, `required` asks for a card. Set
   * `never` or `required` to change it; a configured `deny` rule still blocks the call.
   */
  approval: "required" | "never";
}

/**
 * `tool_call`: after a model step returned tool calls, before policy, cards or any run. Return it
 * with changed `arguments` (the card shows them, "changed by policy") or `approval`.
 */
export interface ToolCallEvent {
  type: "tool_call";
  createdBy: "agent";
  world: string;
  chat: HookChat;
  /** The agent whose step made the calls. */
  agent: string;
  /** The turn the calls belong to. */
  turnId: string;
  toolCalls: HookToolCall[];
}

/** Every event a hook sees: one union tagged by `type`, JSON-serialisable. */
export type RoundtableEvent = MessageEvent | ToolCallEvent;

/** A programmatic message: what `respond` posts instead of the default path. */
export interface RespondMessage {
  text: string;
  /** An agent of the world, or `system` for a world notice. Default: the event's agent, else the world's default agent. */
  sender?: string;
}

/** Options of `respond`. */
export interface RespondOptions {
  /** `tool_results`: post the message after the denied tool results are stored. */
  enqueueAfter?: "tool_results";
}

/**
 * Suppress the default path and post a message instead: for a `message`, no routing and no
 * model call; for a `tool_call`, every call gets `denied: <text>` and the turn ends with this
 * message as its answer. The message is itself an event, routed as usual.
 */
export type Respond = (message: RespondMessage, options?: RespondOptions) => void;

/** A logger bound to the event's world, chat and agent (pino's methods). */
export interface HookLogger {
  debug(message: string): void;
  debug(fields: Record<string, unknown>, message?: string): void;
  info(message: string): void;
  info(fields: Record<string, unknown>, message?: string): void;
  warn(message: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
  error(message: string): void;
  error(fields: Record<string, unknown>, message?: string): void;
}

/** What a hook may reach of the service: a logger and the chat's history. */
export interface HookContext {
  log: HookLogger;
  /** The chat's last `n` stored messages, oldest first. */
  history(n: number): Promise<HookMessage[]>;
}

/**
 * A policy module's one export (named, or a member of the default export). Return the event
 * (changed) to change the default path, `undefined` to keep it, or call `respond`.
 */
export type OnEvent = (
  event: RoundtableEvent,
  respond: Respond,
  context: HookContext,
) => RoundtableEvent | undefined | Promise<RoundtableEvent | undefined>;
