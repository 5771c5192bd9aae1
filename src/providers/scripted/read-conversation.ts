import type { ModelRequest, ViewMessage } from "../model-provider.js";

/** A `user` message of a view split into its sender and text (views write `name: text`). */
export interface Said {
  sender: string;
  text: string;
}

/** What the scripted model reads of a request, as a real model would read it. */
export interface Conversation {
  /** Its own name, from the briefing's "You are @name" (undefined without a briefing). */
  self: string | undefined;
  /** The agents the briefing lists (empty without a briefing). */
  agents: string[];
  /** The tools offered. */
  tools: string[];
  messages: readonly ViewMessage[];
}

/** Reads the request: the briefing (if any) for names, the offered tools, the messages. */
export function readConversation(request: ModelRequest): Conversation {
  const self = /You are @([A-Za-z][A-Za-z0-9_-]*)/.exec(request.system)?.[1];
  const agents = [...request.system.matchAll(/^- @([A-Za-z][A-Za-z0-9_-]*)/gm)].map((match) => match[1] ?? "");
  return {
    self,
    agents: agents.filter((name) => name !== ""),
    tools: request.tools.map((tool) => tool.name),
    messages: request.messages,
  };
}

/** `ana: hello` → `{ sender: "ana", text: "hello" }`; a text with no sender gets sender "". */
export function splitSaid(text: string): Said {
  const match = /^([^:\n]{1,80}): ([\s\S]*)$/.exec(text);
  return match ? { sender: match[1] ?? "", text: match[2] ?? "" } : { sender: "", text };
}

/** The `@name`s in a text, in order, without the `@`. */
export function mentionsIn(text: string): string[] {
  return [...text.matchAll(/(?<![\w@])@([A-Za-z][A-Za-z0-9_-]*)/g)].map((match) => match[1] ?? "");
}

/** The text without `@self` mentions (and the punctuation right after them), trimmed. */
export function withoutMentionOf(text: string, self: string | undefined): string {
  if (self === undefined) return text.trim();
  const pattern = new RegExp(`(?<![\\w@])@${escapeRegExp(self)}\\b[,:]?\\s*`, "gi");
  return text.replace(pattern, "").trim();
}

/** Index of the last message with `role` before `before` (exclusive), or -1. */
export function lastIndexOf(messages: readonly ViewMessage[], role: ViewMessage["role"], before: number): number {
  for (let index = before - 1; index >= 0; index--) {
    if (messages[index]?.role === role) return index;
  }
  return -1;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
