/**
 * Denials that stick (docs/approvals.md, "Deny with a reason"): a call denied by a person is
 * remembered for its chat's session, and a later call by the same agent with the same tool and
 * the same canonical arguments is denied again at once, without a card, until `/reset` (which
 * starts a new session epoch).
 */
import type { DeniedCallKey, DeniedCallRecord } from "../stores/denials-and-edits.js";
import type { ApprovalRecord, ToolCallRecord } from "../records.js";
import type { WorldContext } from "../world-context.js";

/** The tool result of a denied call: `denied by <name>` and, when given, `: <reason>`, as is. */
export function denialText(name: string, reason: string | undefined): string {
  return reason === undefined || reason === "" ? `denied by ${name}` : `denied by ${name}: ${reason}`;
}

/** The detail of a call denied again by a sticky denial (written `denied: <detail>`). */
export function stickyDenialDetail(denial: DeniedCallRecord): string {
  const why = denial.reason === undefined || denial.reason === "" ? "" : ` (${denial.reason})`;
  return `the same call was denied by ${denial.deniedBy.name}${why}`;
}

/**
 * The denial a person's *Deny* stores with the decision, keyed by the chat's session as it is at
 * the press (a later `/reset` ends it); undefined when the arguments cannot be hashed.
 */
export async function deniedCallFor(
  context: Pick<WorldContext, "store" | "hashCall">,
  approval: ApprovalRecord,
  call: ToolCallRecord,
  user: { id: string; displayName: string },
  reason: string | undefined,
  now: Date,
): Promise<DeniedCallRecord | undefined> {
  const argsHash = context.hashCall(call.name, call.argumentsJson);
  const chat = await context.store.getChat(approval.chatKey);
  if (argsHash === undefined || !chat) return undefined;
  return {
    chatKey: approval.chatKey,
    agent: approval.agent,
    tool: call.name,
    argsHash,
    sessionEpoch: chat.sessionEpoch,
    approvalId: approval.id,
    deniedBy: { id: user.id, name: user.displayName },
    ...(reason === undefined || reason === "" ? {} : { reason }),
    createdAt: now,
  };
}

/**
 * The detail to deny a call with again, when the same call (agent, tool, canonical arguments)
 * was denied by a person in this chat's session; undefined otherwise.
 */
export async function stickyDenialOf(
  context: Pick<WorldContext, "store">,
  key: DeniedCallKey,
): Promise<string | undefined> {
  const denial = await context.store.findDeniedCall(key);
  return denial === undefined ? undefined : stickyDenialDetail(denial);
}
