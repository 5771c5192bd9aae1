/**
 * `roundtable replay` over a real stored history (the service's own turns through the harness),
 * shared by the SQLite and PostgreSQL suites: the replay lists what a policy would have denied,
 * and every table is the same afterwards (row counts and a digest of every row).
 */
import { createHash } from "node:crypto";
import Database from "libsql";
import pg from "pg";
import { expect } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { runCliInProcess } from "../cli/run-cli-in-process.js";
import { createHarness } from "../world/harness.js";
import { writeHookModule } from "./hook-modules.js";

/** Each table's row count and a digest of all its rows, by table name. */
export async function tableDigests(databaseUrl: string): Promise<Record<string, { rows: number; digest: string }>> {
  const digests: Record<string, { rows: number; digest: string }> = {};
  const add = (name: string, rows: unknown[]) => {
    const text = JSON.stringify(rows, (_, value) => (typeof value === "bigint" ? value.toString() : value));
    digests[name] = { rows: rows.length, digest: createHash("sha256").update(text).digest("hex") };
  };
  if (databaseUrl.startsWith("file:")) {
    const database = new Database(databaseUrl.slice("file:".length), { readonly: true });
    try {
      const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
        name: string;
      }[];
      for (const { name } of tables) add(name, database.prepare(`SELECT * FROM "${name}" ORDER BY 1`).all());
    } finally {
      database.close();
    }
    return digests;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ schemaname: string; tablename: string }>(
      "SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2",
    );
    for (const { schemaname, tablename } of tables.rows) {
      const rows = await client.query(`SELECT * FROM "${schemaname}"."${tablename}" ORDER BY 1`);
      add(`${schemaname}.${tablename}`, rows.rows);
    }
  } finally {
    await client.end();
  }
  return digests;
}

/** A model that runs what the message asks for (`run <command>`), then reports. */
function runner() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: "done" };
    const text = last && "text" in last ? String(last.text) : "";
    const command = /run (\w+)/.exec(text)?.[1];
    return command
      ? { text: "On it.", toolCalls: [{ name: "shell_cmd", args: { command, args: ["version"] } }] }
      : { text: "hello" };
  });
}

/** Store a history, replay a policy over it, and check the output and that nothing changed. */
export async function replayOverStoredHistory(databaseUrl: string): Promise<void> {
  const harness = await createHarness({
    agents: [{ name: "alice", provider: runner(), tools: ["shell_cmd"] }],
    world: { defaultAgent: "alice" },
    tools: { approval: { shell_cmd: "never" } },
    databaseUrl,
    keepDatabase: true,
  });
  try {
    await harness.say("@alice hi, my mail is jo@example.com");
    await harness.say("@alice run kubectl");
    await harness.say("@alice run uname");
    await harness.say("@alice boom");
    await harness.idle();
  } finally {
    await harness.close();
  }
  const module = writeHookModule(`
    export function onEvent(event, respond) {
      if (event.type === "message" && event.message.text.includes("boom")) throw new Error("cannot read boom");
      if (event.type === "message" && event.message.text.includes("@example.com"))
        return { ...event, message: { ...event.message, text: event.message.text.replace(/\\S+@example\\.com/, "[email]") } };
      if (event.type !== "tool_call") return;
      if (event.toolCalls.some((call) => call.arguments.command === "kubectl")) respond({ text: "no kubectl" });
      else return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, arguments: { ...call.arguments, args: ["-a"] } })) };
    }`);
  const before = await tableDigests(databaseUrl);
  const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" };
  const json = await runCliInProcess(["replay", "--hooks", module, "--json"], { env });
  expect(json.stderr).toBe("");
  expect(json.code).toBe(0);
  const report = JSON.parse(json.stdout) as {
    counts: Record<string, { events: number; kept: number; changed: number; responded: number; failed: number }>;
    toolCalls: {
      agent: string;
      tool: string;
      outcome: string;
      arguments: unknown;
      changedArguments?: unknown;
      text?: string;
    }[];
    failures: { kind: string; error: string }[];
  };
  expect(report.counts.tool_call).toEqual({ events: 2, kept: 0, changed: 1, responded: 1, failed: 0 });
  expect(report.counts.message?.failed).toBe(1);
  expect(report.counts.message?.changed).toBe(1);
  expect(report.toolCalls).toEqual([
    {
      chat: expect.any(String),
      agent: "alice",
      tool: "shell_cmd",
      outcome: "denied",
      arguments: { command: "kubectl", args: ["version"] },
      text: "no kubectl",
    },
    {
      chat: expect.any(String),
      agent: "alice",
      tool: "shell_cmd",
      outcome: "changed",
      arguments: { command: "uname", args: ["version"] },
      changedArguments: { command: "uname", args: ["-a"] },
    },
  ]);
  expect(report.failures).toEqual([expect.objectContaining({ kind: "message", error: "cannot read boom" })]);
  const text = await runCliInProcess(["replay", "--hooks", module, "--since", "1d"], { env });
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/tool_call\s+2\s+0\s+1\s+1\s+0/);
  expect(text.stdout).toMatch(/shell_cmd\s+denied: no kubectl\s+\{"command":"kubectl","args":\["version"\]\}/);
  expect(text.stdout).toContain('{"command":"uname","args":["-a"]}');
  expect(text.stdout).toContain("cannot read boom");
  expect(await tableDigests(databaseUrl)).toEqual(before);
}

/**
 * A history stored under a live policy that changed a message's text and a call's arguments:
 * the replay feeds the events as they were before that policy changed them (the stored raw
 * message and the model's arguments), not what the live policy made of them.
 */
export async function replayFeedsTheEventsAsTheyCame(databaseUrl: string): Promise<void> {
  const live = writeHookModule(`
    export function onEvent(event) {
      if (event.type === "message" && event.message.text.includes("@example.com"))
        return { ...event, message: { ...event.message, text: event.message.text.replace(/\\S+@example\\.com/, "[email]") } };
      if (event.type === "tool_call")
        return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, arguments: { ...call.arguments, args: ["-a"] } })) };
    }`);
  const harness = await createHarness({
    agents: [{ name: "alice", provider: runner(), tools: ["shell_cmd"] }],
    world: { defaultAgent: "alice" },
    tools: { approval: { shell_cmd: "never" } },
    hooks: { module: live },
    databaseUrl,
    keepDatabase: true,
  });
  try {
    await harness.say("@alice run uname, mail jo@example.com");
    await harness.idle();
  } finally {
    await harness.close();
  }
  // Records what it is fed, and keeps everything.
  const seen = writeHookModule(`
    export function onEvent(event, respond) {
      if (event.type === "message") respond({ text: "saw " + event.message.text });
      if (event.type === "tool_call") respond({ text: "saw " + JSON.stringify(event.toolCalls.map((call) => call.arguments)) });
    }`);
  const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" };
  const json = await runCliInProcess(["replay", "--hooks", seen, "--json"], { env });
  expect(json.code).toBe(0);
  const report = JSON.parse(json.stdout) as { responded: { text: string }[] };
  const texts = report.responded.map((item) => item.text);
  expect(texts).toContain("saw @alice run uname, mail jo@example.com");
  expect(texts).toContain('saw [{"command":"uname","args":["version"]}]');
  expect(texts.join("\n")).not.toContain("[email]");
}
