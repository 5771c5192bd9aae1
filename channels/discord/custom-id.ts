import type { ApprovalChoice, ApprovalInput } from "../../src/world/channel-adapter.js";

/** What a card's button does: decide, or ask for a reason or an edit first (a modal). */
export type CardButton = ApprovalChoice | ApprovalInput;

/**
 * A button's `custom_id`: the opaque approval id and the choice, nothing else
 * (`rt:<approval id>:<o|s|d|a|e|r>`, at most 100 characters as Discord allows).
 */
const prefix = "rt";
const codes: Record<CardButton, string> = { once: "o", session: "s", deny: "d", always: "a", edit: "e", reason: "r" };
const choices = new Map<string, CardButton>(
  Object.entries(codes).map(([choice, code]) => [code, choice as CardButton]),
);

export function encodeApprovalCustomId(approvalId: string, choice: CardButton): string {
  const id = `${prefix}:${approvalId}:${codes[choice]}`;
  if (id.length > 100)
    throw new RangeError(`approval id too long for a Discord button: ${approvalId.length} characters`);
  return id;
}

/** The approval id and choice of a button, or undefined for anything that is not one of ours. */
export function decodeApprovalCustomId(customId: string): { approvalId: string; choice: CardButton } | undefined {
  const match = /^rt:([A-Za-z0-9_-]{1,90}):([osdaer])$/.exec(customId);
  if (!match) return undefined;
  const choice = choices.get(match[2] ?? "");
  return choice === undefined ? undefined : { approvalId: match[1] ?? "", choice };
}

/** The Stop button on an answer being written: `rt-stop:<agent>` (`rt-stop` stops every agent of the chat). */
export function encodeStopCustomId(agent: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(agent) ? `rt-stop:${agent}` : "rt-stop";
}

/** The agent a Stop button names (empty: every agent of the chat), or undefined when it is no Stop button. */
export function decodeStopCustomId(customId: string): { agent: string } | undefined {
  const match = /^rt-stop(?::([A-Za-z0-9_-]{1,64}))?$/.exec(customId);
  return match ? { agent: match[1] ?? "" } : undefined;
}

/** A reason or edit modal: `rt-in:<approval id>:<r|e>` (its submission carries it back). */
export function encodeModalCustomId(approvalId: string, input: ApprovalInput): string {
  return `rt-in:${approvalId}:${input === "reason" ? "r" : "e"}`;
}

/** The card and input of a modal's submission, or undefined when the modal is not ours. */
export function decodeModalCustomId(customId: string): { approvalId: string; input: ApprovalInput } | undefined {
  const match = /^rt-in:([A-Za-z0-9_-]{1,90}):([re])$/.exec(customId);
  if (!match) return undefined;
  return { approvalId: match[1] ?? "", input: match[2] === "r" ? "reason" : "edit" };
}
