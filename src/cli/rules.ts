import { isRuleActive, type StoredRuleRecord } from "../world/policy/stored-rules.js";
import { outputRedactor } from "./approvals-command.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";
import { formatTable } from "./format-table.js";
import { openCliStore } from "./open-cli-store.js";
import { UsageError } from "./usage-error.js";

/** Who `roundtable rules revoke` records as having revoked a rule. */
export const cliRevoker = "cli";

export const rulesCommand: CliCommand = {
  name: "rules",
  summary: "The stored Always allow rules (made from cards); revoke one",
  help: `Usage: roundtable rules [--world NAME] [--json] [--config FILE]
       roundtable rules revoke <id>

Lists every Always allow rule made from an approval card (approvals.allowAlways), oldest
first: id, world, agent, tool, arguments, who made it (on which platform, from which card),
when it expires, its state (active, revoked, expired) and how often it was used. A rule lets
exactly the same call (agent, tool and arguments) run without a card until it expires or is
revoked; a configured deny rule still wins. \`revoke <id>\` ends a rule at once; a revoked or
expired rule never matches again.

Secrets in the arguments are redacted as in the logs (see roundtable approvals --help).

Options:
  --world NAME    Only this world
  --json          One JSON array with every field instead of the table
  --config FILE   Config whose secrets are redacted (default: as roundtable start finds it)
  -h, --help      Show this help

Environment: DATABASE_URL (default file:./data/roundtable.db).`,
  options: { world: { type: "string" }, json: { type: "boolean" } },
  allowPositionals: true,
  async run(values, context) {
    const [verb, id, ...rest] = context.positionals ?? [];
    if (verb !== undefined && (verb !== "revoke" || id === undefined || rest.length > 0))
      throw new UsageError(
        `expected nothing or revoke <id>, got ${JSON.stringify((context.positionals ?? []).join(" "))}`,
      );
    const opened = await openCliStore(context);
    try {
      if (verb === "revoke" && id !== undefined) {
        const result = await opened.store.revokeStoredRule(id, cliRevoker, new Date());
        if (!result) {
          context.stderr.write(`roundtable rules: there is no rule ${id}\n`);
          return exitCodes.failed;
        }
        context.stdout.write(
          result.revoked
            ? `Rule ${id} revoked: ${result.rule.agent}'s ${result.rule.tool} with these arguments asks again (world ${result.rule.world}).\n`
            : `Rule ${id} was already revoked by ${result.rule.revokedBy ?? "someone"} at ${result.rule.revokedAt?.toISOString() ?? "?"}.\n`,
        );
        return exitCodes.ok;
      }
      const world = typeof values.world === "string" ? values.world : undefined;
      const rules = await opened.store.listStoredRules(world === undefined ? {} : { world });
      const redact = await outputRedactor(context, "rules");
      const now = new Date();
      if (values.json === true) {
        context.stdout.write(
          redact(
            `${JSON.stringify(
              rules.map((rule) => ruleJson(rule, now)),
              null,
              2,
            )}\n`,
          ),
        );
        return exitCodes.ok;
      }
      if (rules.length === 0) {
        context.stdout.write(`No stored rules${world === undefined ? "" : ` in world ${world}`}.\n`);
        return exitCodes.ok;
      }
      const table = formatTable(
        ["ID", "WORLD", "AGENT", "TOOL", "ARGUMENTS", "BY", "EXPIRES (UTC)", "STATE", "USES"],
        rules.map((rule) => [
          rule.id,
          rule.world,
          rule.agent,
          rule.tool,
          rule.argumentsJson,
          `${rule.author.name} (${rule.author.platform})`,
          rule.expiresAt.toISOString(),
          stateOf(rule, now),
          String(rule.useCount),
        ]),
      );
      context.stdout.write(redact(`${table}\n`));
      return exitCodes.ok;
    } finally {
      await opened.close();
    }
  },
};

function stateOf(rule: StoredRuleRecord, now: Date): "active" | "revoked" | "expired" {
  if (rule.revokedAt !== undefined) return "revoked";
  return isRuleActive(rule, now) ? "active" : "expired";
}

/** A rule as `--json` prints it; times are ISO strings. */
function ruleJson(rule: StoredRuleRecord, now: Date) {
  return {
    id: rule.id,
    world: rule.world,
    agent: rule.agent,
    tool: rule.tool,
    argumentsJson: rule.argumentsJson,
    author: rule.author,
    sourceApproval: rule.sourceApprovalId,
    createdAt: rule.createdAt.toISOString(),
    expiresAt: rule.expiresAt.toISOString(),
    state: stateOf(rule, now),
    ...(rule.revokedAt === undefined ? {} : { revokedAt: rule.revokedAt.toISOString() }),
    ...(rule.revokedBy === undefined ? {} : { revokedBy: rule.revokedBy }),
    useCount: rule.useCount,
    ...(rule.lastUsedAt === undefined ? {} : { lastUsedAt: rule.lastUsedAt.toISOString() }),
  };
}
