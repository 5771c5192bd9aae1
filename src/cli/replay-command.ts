import { loadConfig } from "../config/load-config.js";
import { parseDuration } from "../config/duration.js";
import { loadHookModule } from "../hooks/load-hook-module.js";
import { type ReplayReport, replayEvents } from "../hooks/replay-events.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";
import { createCliLogger } from "./cli-logger.js";
import { formatTable } from "./format-table.js";
import { openCliStore } from "./open-cli-store.js";

export const replayCommand: CliCommand = {
  name: "replay",
  summary: "Feed the stored history through a policy module, read-only, and show what it would have done",
  help: `Usage: roundtable replay --hooks MODULE [--world NAME] [--since 7d] [--json]

Feeds the stored history's message and tool_call events, oldest first, through a policy module
(docs/hooks.md) and prints what it would have done: per event kind how many were kept, changed
and responded to (and how often the module failed), then every tool call it would have changed
or denied, with its chat, agent, tool and its original and changed arguments. Read-only: nothing
is posted, stored or run; respond is only recorded. A module that throws on an event is counted
and listed, and the replay goes on. Tool calls' approval is what the config's tools section says.

Options:
  --hooks MODULE  The policy module (.js, .mjs or .ts)
  --world NAME    Only this world's chats
  --since DUR     How far back (default 7d; 45s, 30m, 2h, 7d)
  --json          One JSON document instead of tables
  -h, --help      Show this help

Environment: DATABASE_URL (default file:./data/roundtable.db).`,
  options: {
    hooks: { type: "string" },
    world: { type: "string" },
    since: { type: "string" },
    json: { type: "boolean" },
  },
  async run(values, context) {
    if (typeof values.hooks !== "string" || values.hooks === "") {
      context.stderr.write("roundtable replay: --hooks: expected the policy module to replay\n");
      return exitCodes.usage;
    }
    const sinceMs = parseDuration(typeof values.since === "string" ? values.since : "7d");
    if (sinceMs === undefined) {
      context.stderr.write(
        `roundtable replay: --since: expected a duration such as 7d, got ${JSON.stringify(values.since)}\n`,
      );
      return exitCodes.usage;
    }
    const { config } = await loadConfig({ configPath: context.configPath, env: context.env, cwd: context.cwd });
    const module = await loadHookModule(values.hooks, 5_000, context.cwd);
    const logger = createCliLogger(context, "warn");
    const opened = await openCliStore(context);
    let report: ReplayReport;
    try {
      report = await replayEvents({
        store: opened.store,
        module,
        since: new Date(Date.now() - sinceMs),
        ...(typeof values.world === "string" ? { world: values.world } : {}),
        tools: config.tools,
        logger,
      });
    } finally {
      await opened.close();
    }
    context.stdout.write(values.json === true ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
    return exitCodes.ok;
  },
};

function formatReport(report: ReplayReport): string {
  const scope = `${report.world === undefined ? "" : ` in world ${report.world}`} since ${report.since}`;
  const lines = [`Replayed through ${report.module}${scope}:`, ""];
  lines.push(
    formatTable(
      ["EVENT", "EVENTS", "KEPT", "CHANGED", "RESPONDED", "FAILED"],
      (["message", "tool_call"] as const).map((kind) => {
        const counts = report.counts[kind];
        return [kind, counts.events, counts.kept, counts.changed, counts.responded, counts.failed].map(String);
      }),
    ),
  );
  lines.push("");
  if (report.toolCalls.length === 0) lines.push("No tool call would have been changed or denied.");
  else
    lines.push(
      "Tool calls it would have changed or denied:",
      formatTable(
        ["CHAT", "AGENT", "TOOL", "OUTCOME", "ARGUMENTS", "CHANGED ARGUMENTS"],
        report.toolCalls.map((call) => [
          call.chat,
          call.agent,
          call.tool,
          call.approval
            ? `${call.outcome} (approval ${call.approval.to})`
            : call.text
              ? `${call.outcome}: ${call.text}`
              : call.outcome,
          JSON.stringify(call.arguments),
          call.changedArguments === undefined ? "-" : JSON.stringify(call.changedArguments),
        ]),
      ),
    );
  if (report.failures.length > 0) {
    lines.push("", `The module failed on ${report.failures.length} event${report.failures.length === 1 ? "" : "s"}:`);
    lines.push(
      formatTable(
        ["EVENT", "CHAT", "ID", "ERROR"],
        report.failures.map((failure) => [failure.kind, failure.chat, failure.id, failure.error]),
      ),
    );
  }
  return lines.join("\n");
}
