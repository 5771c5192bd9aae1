/**
 * *Edit, then approve* (docs/approvals.md): with `approvals.edit` on, a decider may change a
 * call's arguments; the edit is checked against the tool's input schema (and the configured
 * `deny` rules), and counts as *Approve once* of the edited call. The approval keeps the edited
 * arguments beside the model's, and the model's tool result starts with a note that says so.
 */
import type { ApprovalClick, ClickResult } from "../../inbound.js";
import type { ApprovalRecord, ToolCallRecord } from "../../records.js";
import type { WorldContext } from "../../world-context.js";
import type { WorldSettings } from "../../world-settings.js";

/** The edited arguments to store with the decision, or the private answer that refuses the edit. */
export type EditOutcome = { ok: true; argumentsJson: string } | { ok: false; result: ClickResult };

/** Longest edited arguments text taken (as the card's own JSON would be, within reason). */
const maxEditLength = 20_000;

/** Check an `edit` press; nothing is decided when it is refused. */
export function checkEditClick(
  context: Pick<WorldContext, "checkEdit">,
  world: Pick<WorldSettings, "editArguments">,
  tool: string | undefined,
  click: ApprovalClick,
): EditOutcome {
  if (world.editArguments !== true || tool === undefined)
    return refuse("not-allowed", "Editing is not enabled in this world; nothing was decided.");
  const text = click.editedArgumentsJson;
  if (text === undefined || text.trim() === "")
    return refuse("invalid", "An edit needs the arguments as JSON; nothing was decided.");
  if (text.length > maxEditLength)
    return refuse("invalid", `The edited arguments are over ${maxEditLength} characters; nothing was decided.`);
  if (!context.checkEdit) return refuse("invalid", "Edits cannot be checked here; nothing was decided.");
  const checked = context.checkEdit(tool, text);
  if (!checked.ok) return refuse("invalid", `That edit does not fit ${tool}: ${checked.problem}. Nothing changed.`);
  return { ok: true, argumentsJson: checked.argumentsJson };
}

/** The note the model's tool result starts with, when an approver edited the call. */
export function editNote(approval: Pick<ApprovalRecord, "decidedByName" | "editedArgumentsJson">): string | undefined {
  if (approval.editedArgumentsJson === undefined) return undefined;
  return `note: ${approval.decidedByName ?? "an approver"} edited the arguments before it ran: ${approval.editedArgumentsJson}`;
}

function refuse(status: "invalid" | "not-allowed", text: string): EditOutcome {
  return { ok: false, result: { status, text } };
}

/**
 * The arguments a call runs with and the note its result starts with, when an approver edited
 * it; undefined for a call run as the model asked.
 */
export async function editOfCall(
  context: Pick<WorldContext, "store">,
  call: Pick<ToolCallRecord, "id" | "turnId">,
): Promise<{ argumentsJson: string; note: string } | undefined> {
  const approval = (await context.store.listApprovals({ turnId: call.turnId })).find(
    (item) => item.toolCallId === call.id,
  );
  const note = approval?.state === "approved" ? editNote(approval) : undefined;
  if (!approval?.editedArgumentsJson || note === undefined) return undefined;
  return { argumentsJson: approval.editedArgumentsJson, note };
}
