import type { Store } from "../world/store.js";
import type { AuditedApproval } from "./audited-approval.js";

/**
 * The calls a stored *Always allow* rule let run since `since` (in `world`), as audit entries:
 * `approved` with `allowedByRule`, decided by nobody (no card was shown), the rule's author
 * named in `reason`.
 */
export async function auditRuleUses(store: Store, since: Date, world?: string): Promise<AuditedApproval[]> {
  const entries: AuditedApproval[] = [];
  const filter = world === undefined ? { since } : { since, world };
  for (const use of await store.listStoredRuleUses(filter)) {
    const call = await store.getToolCall(use.toolCallId);
    const rule = await store.getStoredRule(use.ruleId);
    const result = await store.getToolResult(use.toolCallId);
    const turn = call ? await store.getTurn(call.turnId) : undefined;
    const trigger = turn ? await store.getMessage(turn.triggerMessageId) : undefined;
    const requesterId = turn?.startedById ?? "?";
    const usedAt = use.usedAt.toISOString();
    entries.push({
      id: use.toolCallId,
      shortId: "",
      world: use.world,
      chat: use.chatKey,
      agent: use.agent,
      tool: call?.name ?? rule?.tool ?? "?",
      argumentsJson: call?.argumentsJson ?? "",
      requestedBy: {
        id: requesterId,
        ...(trigger?.author.id === requesterId ? { name: trigger.author.name } : {}),
      },
      reason: `allowed by stored rule ${use.ruleId}${rule ? ` (always allow by ${rule.author.name})` : ""}`,
      state: "approved",
      decidedAt: usedAt,
      createdAt: usedAt,
      expiresAt: (rule?.expiresAt ?? use.usedAt).toISOString(),
      waitedSeconds: 0,
      ...(result === undefined ? {} : { resultKind: result.kind }),
      changes: [],
      allowedByRule: use.ruleId,
    });
  }
  return entries;
}
