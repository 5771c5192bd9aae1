import { keptWebConsoleToken } from "../app/web-console-token.js";
import { configSecrets } from "../config/config-secrets.js";
import { parseDuration } from "../config/duration.js";
import { loadConfig } from "../config/load-config.js";
import { environmentSecrets, secretRedactor } from "../log/redact-secrets.js";
import { describeWait } from "../world/turn/index.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";
import { type AuditedApproval, auditApprovals } from "./audit-approvals.js";
import { openCliStore } from "./open-cli-store.js";

export const approvalsCommand: CliCommand = {
  name: "approvals",
  summary: "Every approval asked for: who asked, who decided what and when, and the tool's result",
  help: `Usage: roundtable approvals [--world NAME] [--since 7d] [--json [--raw]] [--config FILE]

Lists every approval asked for in the period, oldest first: chat, agent, tool, arguments, who
asked, who decided what and when (or that it expired or was skipped), how long it waited, and
the kind of the tool's result (ok, error, denied, expired, skipped, ...). A call that a stored
Always allow rule let run without a card is listed too, with the rule (allowedByRule in JSON).
--json prints one JSON array with every field (and each state change) for export.

Secrets in the arguments and notes are redacted as in the logs: the config's keys and tokens
(when the config can be read), secret-named environment variables, and key shapes (sk-…,
ghp_…, xox…, AIza…, Bearer …). --raw prints the stored bytes instead, for an auditor.

Options:
  --world NAME    Only this world
  --since AGE     How far back: 45m, 12h, 7d (default 7d)
  --json          JSON instead of lines
  --raw           Do not redact secrets (the stored bytes)
  --config FILE   Config whose secrets are redacted (default: as roundtable start finds it)
  -h, --help      Show this help

Environment: DATABASE_URL (default file:./data/roundtable.db).`,
  options: {
    world: { type: "string" },
    since: { type: "string" },
    json: { type: "boolean" },
    raw: { type: "boolean" },
  },
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
    const redact = values.raw === true ? (text: string) => text : await outputRedactor(context);
    if (values.json === true) {
      context.stdout.write(redact(`${JSON.stringify(audited, null, 2)}\n`));
      return exitCodes.ok;
    }
    if (audited.length === 0) {
      context.stdout.write(
        `No approvals${world === undefined ? "" : ` in world ${world}`} in the last ${sinceText}.\n`,
      );
      return exitCodes.ok;
    }
    context.stdout.write(redact(`${audited.map(approvalLine).join("\n")}\n`));
    return exitCodes.ok;
  },
};

/**
 * The logs' redactor over this command's output: the config's secrets when it can be read (a
 * config that cannot, for example for want of its variables here, leaves the environment's
 * secrets and the key shapes, and says so).
 */
export async function outputRedactor(
  context: Parameters<CliCommand["run"]>[1],
  command = "approvals",
): Promise<(text: string) => string> {
  const secrets = environmentSecrets(context.env);
  try {
    const loaded = await loadConfig({ configPath: context.configPath, env: context.env, cwd: context.cwd });
    secrets.push(...configSecrets(loaded.config));
    const kept = keptWebConsoleToken(context.cwd);
    if (kept !== undefined) secrets.push(kept);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    context.stderr.write(
      `roundtable ${command}: the config could not be read (${secretRedactor(secrets)(why)}); only secret-named environment variables and key shapes are redacted\n`,
    );
  }
  return secretRedactor(secrets);
}

function approvalLine(entry: AuditedApproval): string {
  const asked = `asked by ${entry.requestedBy.name ?? entry.requestedBy.id}`;
  const decided =
    entry.state === "pending"
      ? "pending"
      : `${entry.state}${entry.choice === undefined ? "" : ` (${entry.choice})`}${entry.decidedBy ? ` by ${entry.decidedBy.name}` : ""} at ${entry.decidedAt ?? "?"}`;
  const waited = entry.waitedSeconds === undefined ? "" : ` after ${describeWait(entry.waitedSeconds * 1000)}`;
  const result = entry.resultKind === undefined ? "no result yet" : `result ${entry.resultKind}`;
  if (entry.allowedByRule !== undefined)
    return `${entry.createdAt}  ${entry.chat}  ${entry.agent}  ${entry.tool} ${entry.argumentsJson}  ${asked}  allowed by rule ${entry.allowedByRule} (no card)  ${result}`;
  const why = entry.denialReason === undefined ? "" : `: ${entry.denialReason}`;
  const edit = entry.edit === undefined ? "" : `  edited by ${entry.edit.by} to ${entry.edit.argumentsJson}`;
  return `${entry.createdAt}  ${entry.chat}  ${entry.agent}  ${entry.tool} ${entry.argumentsJson}  ${asked}  ${decided}${why}${waited}${edit}  ${result}`;
}
