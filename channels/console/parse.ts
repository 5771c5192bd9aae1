import type { ApprovalChoice } from "../../src/world/channel-adapter.js";

/** A line typed into the console: a message, an approval command, help, or a bad command. */
export type ConsoleInput =
  | { kind: "message"; text: string }
  | { kind: "approve"; choice: ApprovalChoice; approvalId: string; reason?: string }
  | { kind: "help"; text: string }
  | { kind: "invalid"; problem: string }
  | { kind: "empty" };

export const approveUsage = "usage: /approve once|session|deny|always [id] [reason], /approve edit <id> <json>";

/**
 * `/approve once|session|deny|always [id] [reason…]` (`always` where the card offers it); no id
 * means the oldest pending approval. `/approve edit <id> <json>`: the rest is the edited arguments.
 */
export function parseConsoleLine(line: string): ConsoleInput {
  const text = line.replace(/\r$/, "");
  const trimmed = text.trim();
  if (trimmed === "") return { kind: "empty" };
  if (trimmed === "/help") return { kind: "help", text: trimmed };
  if (!trimmed.startsWith("/approve")) return { kind: "message", text };
  const [command, choice, id, ...reason] = trimmed.split(/\s+/);
  if (command !== "/approve") return { kind: "message", text };
  if (choice !== "once" && choice !== "session" && choice !== "deny" && choice !== "always" && choice !== "edit") {
    return { kind: "invalid", problem: approveUsage };
  }
  const joined = reason.join(" ");
  return {
    kind: "approve",
    choice,
    approvalId: id ?? "",
    ...(joined === "" ? {} : { reason: joined }),
  };
}
