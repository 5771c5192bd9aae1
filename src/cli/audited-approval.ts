/** One approval as the audit shows it; times are ISO strings (this is also the JSON export). */
export interface AuditedApproval {
  id: string;
  shortId: string;
  world: string;
  chat: string;
  agent: string;
  tool: string;
  /** The arguments exactly as the model sent them (what the card showed). */
  argumentsJson: string;
  requestedBy: { id: string; name?: string };
  reason: string;
  state: string;
  choice?: string;
  decidedBy?: { id: string; name: string };
  decidedAt?: string;
  createdAt: string;
  expiresAt: string;
  /** From the request to the decision (or expiry), in whole seconds. */
  waitedSeconds?: number;
  /** The kind of the tool call's result (`ok`, `error`, `denied`, `expired`, `skipped`, ...). */
  resultKind?: string;
  changes: { state: string; by: string; at: string; note?: string }[];
  /** A call that ran without a card: the stored *Always allow* rule that allowed it (docs/approvals.md). */
  allowedByRule?: string;
  /** An *Always allow* decision: the rule it made. */
  createdRule?: string;
  /** Where its card was shown with `approvals.route` or `approvals.channel`, and which copy decided (docs/approvals.md). */
  copies?: { chat: string; kind: string; state: string; decidedHere: boolean }[];
}
