import { type ApprovalChoice, type ApprovalInput, approvalChoices } from "../../src/world/channel-adapter.js";

/** What a card's button does: decide, or ask for a reason or an edit first (a modal). */
export type CardButton = ApprovalChoice | ApprovalInput;

/** The `action_id` prefix of approval buttons; the rest is the choice. */
const approvalActionPrefix = "roundtable_approval_";

/** A button's value: only the opaque approval id and the choice (`<id>|<choice>`). */
export function encodeApprovalValue(approvalId: string, choice: CardButton): string {
  return `${approvalId}|${choice}`;
}

export function approvalActionId(choice: CardButton): string {
  return `${approvalActionPrefix}${choice}`;
}

/** Reads a button value back; undefined for anything the service did not write. */
export function decodeApprovalValue(value: string): { approvalId: string; choice: CardButton } | undefined {
  const match = /^([^|\s]{1,200})\|([a-z]+)$/.exec(value);
  if (!match) return undefined;
  const choice = match[2] as CardButton;
  if (!approvalChoices.includes(choice as ApprovalChoice) && choice !== "reason") return undefined;
  return { approvalId: match[1] as string, choice };
}

/** The `action_id` of the Stop button on an answer being written; its value is the agent's name. */
export const stopActionId = "roundtable_stop";
