import { loadConfig, resolveDatabaseUrl } from "../config/load-config.js";
import { checkHooks } from "./check/check-hooks.js";
import { exposureWarnings, metricsExposureWarning } from "../config/exposure-warnings.js";
import { autonomousApprovalWarnings } from "../config/check-autonomous.js";
import { quorumWarnings } from "../config/check-quorum.js";
import { approvalRouteWarnings } from "../config/check-approval-routes.js";
import { requiresApiKey } from "../config/provider-environment.js";
import { checkDatabase } from "./check/check-database.js";
import { checkMcpServers } from "./check/check-mcp-servers.js";
import { platformChecks } from "./check/check-platforms.js";
import { checkProvider, usedProviders } from "./check/check-providers.js";
import { type CheckRow, runCheck } from "./check/check-row.js";
import { formatCheckTable } from "./check/format-check-table.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";

export const checkCommand: CliCommand = {
  name: "check",
  summary: "Validate the config, then test the database, provider keys, platform tokens and MCP servers",
  help: `Usage: roundtable check [--config FILE] [--offline]

Validates the config (a problem is printed with the file, the path in it and what was
expected, and the command exits 1). Then, side by side:
  database       DATABASE_URL answers (a SQLite file not created yet is fine)
  provider NAME  each provider an agent uses: its key lists models (OpenAI, Anthropic, Google)
  telegram       getMe          slack   auth.test          discord   GET /users/@me
  mcp NAME       each MCP server starts (or answers) and lists its tools
Prints a table (CHECK, STATUS ok/FAIL/skip, DETAIL) and exits 1 if any check failed.

Options:
  --config FILE   Config file (default: $ROUNDTABLE_CONFIG, else ./roundtable.yaml, else built-in)
  --offline       Only validate the config and reach the database; call no remote service
  -h, --help      Show this help`,
  options: { offline: { type: "boolean" } },
  async run(values, context) {
    const loaded = await loadConfig({ configPath: context.configPath, env: context.env, cwd: context.cwd });
    const { config } = loaded;
    const offline = values.offline === true;
    const skipOffline = { status: "skip", detail: "--offline" } as const;
    const checks: Array<Promise<CheckRow>> = [
      runCheck("database", () => checkDatabase(resolveDatabaseUrl(context.env), context.cwd)),
    ];
    for (const used of usedProviders(config)) {
      const keyRequired = requiresApiKey(used.type, used.provider);
      checks.push(
        runCheck(`provider ${used.name}`, async () => (offline ? skipOffline : checkProvider(used, keyRequired))),
      );
    }
    for (const platform of platformChecks(config)) {
      checks.push(runCheck(platform.name, async () => (offline ? skipOffline : platform.run())));
    }
    const mcpRows = offline
      ? Object.keys(config.tools.mcpServers).map((name): CheckRow => ({ name: `mcp ${name}`, ...skipOffline }))
      : checkMcpServers(config.tools);
    const source = loaded.origin === "built-in default" ? loaded.source : `${loaded.source} (from ${loaded.origin})`;
    const rows: CheckRow[] = [
      { name: "config", status: "ok", detail: source },
      ...loaded.warnings.map((warning): CheckRow => ({ name: "config", status: "ok", detail: `note: ${warning}` })),
      ...exposureWarnings(config).map(
        (warning): CheckRow => ({ name: `access ${warning.world}`, status: "warn", detail: warning.text }),
      ),
      ...approvalRouteWarnings(config).map(
        (warning): CheckRow => ({ name: `approvals ${warning.world}`, status: "warn", detail: warning.text }),
      ),
      ...autonomousApprovalWarnings(config).map(
        (warning): CheckRow => ({ name: warning.subject, status: "warn", detail: warning.text }),
      ),
      ...quorumWarnings(config).map(
        (warning): CheckRow => ({ name: warning.subject, status: "warn", detail: warning.text }),
      ),
      ...[metricsExposureWarning(context.env)].flatMap((text): CheckRow[] =>
        text === undefined ? [] : [{ name: "metrics", status: "warn", detail: text }],
      ),
      ...(await Promise.all(checks)),
      ...(await mcpRows),
      ...(await checkHooks(config, context.cwd)),
    ];
    context.stdout.write(`${formatCheckTable(rows)}\n`);
    const failed = rows.filter((row) => row.status === "FAIL").length;
    if (failed > 0) {
      context.stderr.write(`roundtable check: ${failed} check${failed === 1 ? "" : "s"} failed\n`);
      return exitCodes.failed;
    }
    return exitCodes.ok;
  },
};
