import { RoundtableError } from "../../src/errors/roundtable-error.js";
import type { ApprovalChoice, ApprovalInput } from "../../src/world/channel-adapter.js";

/** What a card's button does: decide, or ask for a reason or an edit first. */
export type CardButton = ApprovalChoice | ApprovalInput;

/** Telegram's limit for `callback_data`, in bytes. */
export const callbackDataLimit = 64;

const choiceCodes: Record<CardButton, string> = {
  once: "o",
  session: "s",
  deny: "d",
  always: "a",
  edit: "e",
  reason: "r",
};
const choicesByCode = new Map<string, CardButton>(
  Object.entries(choiceCodes).map(([choice, code]) => [code, choice as CardButton]),
);

/** `ap:<approval id>:<o|s|d|a|e|r>`: the opaque id and the choice, nothing else. */
export function encodeApprovalCallback(approvalId: string, choice: CardButton): string {
  const data = `ap:${approvalId}:${choiceCodes[choice]}`;
  if (Buffer.byteLength(data, "utf8") > callbackDataLimit || approvalId.includes(":") || approvalId === "") {
    throw new RoundtableError("internal", `approval id does not fit Telegram callback data: ${approvalId}`);
  }
  return data;
}

/** The approval id and choice in `data`, or undefined when it is not ours or malformed. */
export function decodeApprovalCallback(data: string): { approvalId: string; choice: CardButton } | undefined {
  const match = /^ap:([^:\s]{1,58}):([a-z])$/.exec(data);
  if (!match) return undefined;
  const choice = choicesByCode.get(match[2] ?? "");
  if (!choice) return undefined;
  return { approvalId: match[1] ?? "", choice };
}

/** `st:<agent>` (or `st` when the name does not fit): the Stop button on a streaming answer. */
export function encodeStopCallback(agent: string): string {
  const data = `st:${agent}`;
  return Buffer.byteLength(data, "utf8") <= callbackDataLimit && /^[A-Za-z0-9_-]+$/.test(agent) ? data : "st";
}

/** The agent a Stop button names (empty: every agent of the chat), or undefined when it is no Stop button. */
export function decodeStopCallback(data: string): { agent: string } | undefined {
  const match = /^st(?::([A-Za-z0-9_-]{1,61}))?$/.exec(data);
  return match ? { agent: match[1] ?? "" } : undefined;
}
