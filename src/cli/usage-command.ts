import type { UsageDayRecord } from "../world/stores/accounting-store.js";
import type { BucketRecord } from "../world/stores/budget-store.js";
import { utcDay } from "../world/limits/utc-day.js";
import type { CliCommand } from "./cli-command.js";
import { exitCodes } from "./cli-context.js";
import { openCliStore } from "./open-cli-store.js";
import { formatTable } from "./format-table.js";

export const usageCommand: CliCommand = {
  name: "usage",
  summary: "Model usage per world, agent and UTC day: calls, tokens and cost",
  help: `Usage: roundtable usage [--world NAME] [--days N]
       roundtable usage --by person|agent|chat|world [--month] [--world NAME] [--json]

Prints the model usage stored per world, agent and UTC day (what worlds[].limits.tokensPerDay
and costPerDay are checked against): model calls, input and output tokens, and the cost in USD
from agents[].price (or the known price list), with a total. Every model request sent is
counted, also one that was stopped, timed out or failed: where the provider reported no usage
its tokens are estimated (the request's estimated input plus the streamed text), and
ESTIMATED CALLS says how many of a row's calls are.

With --by, prints today's (UTC) use per person (the chain starter: the human whose message
started the chain, or schedule:<name> / trigger:<name>), agent, chat or world, what the
budgets of worlds[].limits are checked against (docs/budgets.md); --month the calendar month's.

Options:
  --world NAME    Only this world
  --days N        The last N UTC days, today included (default 7)
  --by SCOPE      person, agent, chat or world: today's use per subject
  --month         With --by: this calendar month (UTC) instead of today
  --json          Print JSON (with --by: { by, period, rows })
  -h, --help      Show this help

Environment: DATABASE_URL (default file:./data/roundtable.db).`,
  options: {
    world: { type: "string" },
    days: { type: "string" },
    by: { type: "string" },
    month: { type: "boolean" },
    json: { type: "boolean" },
  },
  async run(values, context) {
    if (values.by !== undefined) return usageBy(values, context);
    const days = typeof values.days === "string" ? Number(values.days) : 7;
    if (!Number.isInteger(days) || days < 1) {
      context.stderr.write(
        `roundtable usage: --days: expected a whole number of days, at least 1, got ${JSON.stringify(values.days)}\n`,
      );
      return exitCodes.usage;
    }
    const world = typeof values.world === "string" ? values.world : undefined;
    const fromDay = utcDay(new Date(Date.now() - (days - 1) * 86_400_000));
    const opened = await openCliStore(context);
    let rows: UsageDayRecord[];
    try {
      rows = await opened.store.listUsage({ fromDay, ...(world === undefined ? {} : { world }) });
    } finally {
      await opened.close();
    }
    if (values.json === true) {
      context.stdout.write(`${JSON.stringify({ fromDay, rows }, null, 2)}\n`);
      return exitCodes.ok;
    }
    const scope = `${world === undefined ? "" : ` in world ${world}`} since ${fromDay}`;
    if (rows.length === 0) {
      context.stdout.write(`No model usage recorded${scope}.\n`);
      return exitCodes.ok;
    }
    const total = rows.reduce(
      (sum, row) => ({
        calls: sum.calls + row.calls,
        estimated: sum.estimated + row.estimatedCalls,
        input: sum.input + row.inputTokens,
        output: sum.output + row.outputTokens,
        cost: sum.cost + row.costUsd,
      }),
      { calls: 0, estimated: 0, input: 0, output: 0, cost: 0 },
    );
    const table = formatTable(
      ["DAY", "WORLD", "AGENT", "CALLS", "ESTIMATED CALLS", "INPUT TOKENS", "OUTPUT TOKENS", "COST USD"],
      [
        ...rows.map((row) => [
          row.day,
          row.world,
          row.agent,
          String(row.calls),
          String(row.estimatedCalls),
          String(row.inputTokens),
          String(row.outputTokens),
          dollars(row.costUsd),
        ]),
        [
          "total",
          "",
          "",
          String(total.calls),
          String(total.estimated),
          String(total.input),
          String(total.output),
          dollars(total.cost),
        ],
      ],
    );
    const note =
      total.estimated === 0
        ? ""
        : `${total.estimated} of the calls had no usage reported by the provider (stopped, timed out or failed): their tokens and cost are estimated.\n`;
    context.stdout.write(`Model usage${scope}:\n${table}\n${note}`);
    return exitCodes.ok;
  },
};

const scopes = ["person", "agent", "chat", "world"] as const;

/** `usage --by`: today's (or the month's) buckets of one scope. */
async function usageBy(values: Parameters<CliCommand["run"]>[0], context: Parameters<CliCommand["run"]>[1]) {
  const by = scopes.find((scope) => scope === values.by);
  if (by === undefined) {
    context.stderr.write(
      `roundtable usage: --by: expected one of ${scopes.join(", ")}, got ${JSON.stringify(values.by)}\n`,
    );
    return exitCodes.usage;
  }
  const day = utcDay(new Date());
  const period = values.month === true ? day.slice(0, 7) : day;
  const world = typeof values.world === "string" ? values.world : undefined;
  const opened = await openCliStore(context);
  let rows: BucketRecord[];
  try {
    rows = await opened.store.listBuckets({ scope: by, period, ...(world === undefined ? {} : { world }) });
  } finally {
    await opened.close();
  }
  const plain = rows.map((row) => ({
    world: row.world,
    [by]: row.subject,
    calls: row.calls,
    estimatedCalls: row.estimatedCalls,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    cachedInputTokens: row.cachedInputTokens,
    costUsd: row.costUsd,
  }));
  if (values.json === true) {
    context.stdout.write(`${JSON.stringify({ by, period, rows: plain }, null, 2)}\n`);
    return exitCodes.ok;
  }
  if (rows.length === 0) {
    context.stdout.write(`No model usage recorded for ${period}${world === undefined ? "" : ` in world ${world}`}.\n`);
    return exitCodes.ok;
  }
  const table = formatTable(
    ["WORLD", by.toUpperCase(), "CALLS", "ESTIMATED CALLS", "INPUT TOKENS", "OUTPUT TOKENS", "COST USD"],
    rows.map((row) => [
      row.world,
      by === "world" ? "(world)" : row.subject,
      String(row.calls),
      String(row.estimatedCalls),
      String(row.inputTokens),
      String(row.outputTokens),
      dollars(row.costUsd),
    ]),
  );
  context.stdout.write(`Model usage by ${by}, ${period} (UTC):\n${table}\n`);
  return exitCodes.ok;
}

function dollars(amount: number): string {
  return `$${amount.toFixed(4)}`;
}
