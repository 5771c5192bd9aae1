import type { EditCheck } from "../world/stores/denials-and-edits.js";
import type { AgentPolicy, AgentTools } from "./agent-tools.js";

/**
 * An approver's edit of a call's arguments (docs/approvals.md, "Edit, then approve"), checked
 * as the model's arguments are: the tool's input schema, then the configured `deny` rules (an
 * edit cannot approve what a deny rule blocks). The compact JSON is what runs and is stored.
 */
export function checkEditedArguments(
  tools: Pick<AgentTools, "check">,
  policy: AgentPolicy,
  tool: string,
  argumentsJson: string,
): EditCheck {
  const checked = tools.check(tool, argumentsJson);
  if (!checked.ok) return { ok: false, problem: checked.problem };
  const verdict = policy.decide(tool, checked.args);
  if (verdict.action === "block")
    return { ok: false, problem: `a deny rule blocks these arguments: ${verdict.reason}` };
  return { ok: true, argumentsJson: JSON.stringify(checked.args), preview: policy.preview(checked.args) };
}
