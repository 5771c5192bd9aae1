import { parseDuration } from "../config/duration.js";
import { describeWait } from "../world/approval-outcome.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";
import { type AuditedApproval, auditApprovals } from "./audit-approvals.js";
import { openCliStore } from "./open-cli-store.js";

export const approvalsCommand: CliCommand = {
  name: "approvals",
  summary: "Every approval asked for: who asked, who decided what and when, and the tool's result",
  help: `Usage: roundtable approvals [--world NAME] [--since 7d] [--json]

Lists every approval asked for in the period, oldest first: chat, agent, tool, arguments, who
asked, who decided what and when (or that it expired or was skipped), how long it waited, and
the kind of the tool's result (ok, error, denied, expired, skipped, ...). --json prints one JSON
array with every field (and each state change) for export.

Options:
  --world NAME    Only this world
  --since AGE     How far back: 45m, 12h, 7d (default 7d)
  --json          JSON instead of lines
  -h, --help      Show this help

Environment: DATABASE_URL (default file:./data/roundtable.db).`,
  options: { world: { type: "string" }, since: { type: "string" }, json: { type: "boolean" } },
  async run(values, context) {
    const sinceText = typeof values.since === "string" ? values.since : "7d";
    const age = parseDuration(sinceText);
    if (age === undefined) {
      context.stderr.write(
        `roundtable approvals: --since: expected an age such as 45m, 12h or 7d, got ${JSON.stringify(sinceText)}\n`,
      );
      return exitCodes.usage;
    }
    const world = typeof values.world === "string" ? values.world : undefined;
    const opened = await openCliStore(context);
    let audited: AuditedApproval[];
    try {
      audited = await auditApprovals(opened.store, new Date(Date.now() - age), world);
    } finally {
      await opened.close();
    }
    if (values.json === true) {
      context.stdout.write(`${JSON.stringify(audited, null, 2)}\n`);
      return exitCodes.ok;
    }
    if (audited.length === 0) {
      context.stdout.write(
        `No approvals${world === undefined ? "" : ` in world ${world}`} in the last ${sinceText}.\n`,
      );
      return exitCodes.ok;
    }
    context.stdout.write(`${audited.map(approvalLine).join("\n")}\n`);
    return exitCodes.ok;
  },
};

function approvalLine(entry: AuditedApproval): string {
  const asked = `asked by ${entry.requestedBy.name ?? entry.requestedBy.id}`;
  const decided =
    entry.state === "pending"
      ? "pending"
      : `${entry.state}${entry.choice === undefined ? "" : ` (${entry.choice})`}${entry.decidedBy ? ` by ${entry.decidedBy.name}` : ""} at ${entry.decidedAt ?? "?"}`;
  const waited = entry.waitedSeconds === undefined ? "" : ` after ${describeWait(entry.waitedSeconds * 1000)}`;
  const result = entry.resultKind === undefined ? "no result yet" : `result ${entry.resultKind}`;
  return `${entry.createdAt}  ${entry.chat}  ${entry.agent}  ${entry.tool} ${entry.argumentsJson}  ${asked}  ${decided}${waited}  ${result}`;
}
