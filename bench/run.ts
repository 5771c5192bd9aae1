/**
 * `npm run bench`: the real service process (what `npm start` runs) against fakes on
 * 127.0.0.1: Telegram with long polling, an OpenAI model that answers at once, an MCP tool.
 * Prints a table and writes `bench/results.json`. Asserts nothing; counts and time are bounded.
 *
 *   npm run bench                      SQLite in a temporary directory
 *   npm run bench -- --postgres [URL]  PostgreSQL (URL or $ROUNDTABLE_TEST_POSTGRES_URL; a fresh database)
 *   npm run bench -- --db postgres     the same as --postgres
 *   npm run bench -- --db postgres --processes 1,2,3
 *                                      scale-out: N service processes on one database, one run per N
 *   npm run bench -- --db postgres --processes 1,2,3 --channel slack
 *                                      the same with Slack HTTP events sent round robin to every process
 *                                      (default --channel telegram: long polling in one process)
 *   npm run bench -- ... --warmup N    scale-out: N warm-up messages per process (default 300, 40 with --quick)
 *   npm run bench -- --quick           fewer messages (a smoke run)
 *   npm run bench -- --budgets         the world with three budget caps (docs/budgets.md) that never bite
 *   npm run bench -- --chats N         N chats in the closed loop (default 100, 20 with --quick)
 *   npm run bench -- --profile DIR     the service writes a V8 CPU profile into DIR
 *   npm run bench -- --hooks FILE      with a policy module (`hooks.module`; bench/trivial-hook.mjs keeps every event)
 *   npm run bench -- --heap-sample FILE  what the load allocates, garbage included (bench/heap-sample.ts)
 *   npm run bench -- --model-latency real --heap-snapshot DIR
 *                                      a heap snapshot of the service with the most answers in flight (the ramp's end)
 *   npm run bench -- --model-latency real [--chats N] [--channel slack] [--db postgres [--durable]]
 *                                      the fake model as slow as a real one (800 ms to the first token,
 *                                      50 tokens/s, 400 tokens): answers in flight (bench/real-model.ts)
 *   npm run bench -- --db postgres     without a URL: the bench starts a throwaway server of its own
 *                                      (scripts/postgres-up.sh; --durable: fsync and synchronous_commit on)
 *   npm run bench -- --statement-log FILE
 *                                      every statement of the load counted by text (bench/statement-log.ts)
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { BenchWorld, type Exchange } from "./bench-world.js";
import { treeCpuMilliseconds, treeRssMebibytes } from "./process-stats.js";
import { type FigureRow, renderTable, writeResults } from "./report.js";
import { DatabaseCpu } from "./postgres-cpu.js";
import { dropPostgresDatabase, freshPostgresDatabase } from "./postgres-database.js";
import { runScaleOut, type ScaleOutChannel } from "./scale-out.js";
import { runRealModel } from "./real-model.js";
import { startThrowawayPostgres, type ThrowawayPostgres } from "./throwaway-postgres.js";
import { seedHistory } from "./seed-history.js";
import { repositoryRoot, type ServiceProcess, startServiceProcess } from "./service-process.js";
import { heapSampleEnv } from "./heap-sample.js";
import { markStatements, statementLogEnv } from "./statement-log.js";
import { mean, quantile, round } from "./statistics.js";

const statementsMetric = "roundtable_database_statements_total";
const historySizes = [100, 1_000, 10_000];

interface Settings {
  /** `--profile DIR`: the service writes a V8 CPU profile there when it stops. */
  profileDirectory: string | undefined;
  /** `--hooks FILE`: the service runs with this policy module (docs/hooks.md). */
  hooks: string | undefined;
  /** `--heap-sample FILE`: what the service allocates during the load (bench/heap-sample.ts). */
  heapSample: string | undefined;
  /** `--heap-snapshot DIR`: a heap snapshot of the service at the ramp's end (`--model-latency real`). */
  heapSnapshotDirectory: string | undefined;
  /** `--statement-log FILE`: every statement of the load, counted by text (bench/statement-log.ts). */
  statementLog: string | undefined;
  postgresUrl: string | undefined;
  latencyMessages: number;
  loadChats: number;
  loadPerChat: number;
  historyTurns: number;
  approvals: number;
  /** `--processes 1,2,3`: the scale-out runs instead of the single-process figures. */
  processCounts: number[] | undefined;
  /** `--channel`: where the scale-out's messages come from. */
  channel: ScaleOutChannel;
  /** `--warmup N`: the scale-out's warm-up messages per process. */
  warmupPerProcess: number;
  /** `--db postgres` without a URL: the bench starts a server of its own. */
  startPostgres: boolean;
  /** `--durable`: that server with fsync and synchronous_commit on. */
  durable: boolean;
  /** `--model-latency real`: the fake model as slow as a real one (bench/real-model.ts). */
  modelLatency: "instant" | "real";
  /** `--per-chat N`: messages per chat of the real-speed load (default 3). */
  perChat: number | undefined;
  /** `--concurrency N`: the service's `queue.concurrency` in the real-speed load (default 32). */
  concurrency: number;
}

function readSettings(): Settings {
  const { values, positionals } = parseArgs({
    options: {
      postgres: { type: "boolean" },
      db: { type: "string" },
      processes: { type: "string" },
      quick: { type: "boolean" },
      budgets: { type: "boolean" },
      chats: { type: "string" },
      profile: { type: "string" },
      hooks: { type: "string" },
      channel: { type: "string" },
      warmup: { type: "string" },
      durable: { type: "boolean" },
      "model-latency": { type: "string" },
      "per-chat": { type: "string" },
      concurrency: { type: "string" },
      "statement-log": { type: "string" },
      "heap-sample": { type: "string" },
      "heap-snapshot": { type: "string" },
    },
    allowPositionals: true,
  });
  if (values.db !== undefined && values.db !== "postgres" && values.db !== "sqlite")
    throw new BenchUsageError("--db is sqlite or postgres");
  const processCounts = values.processes?.split(",").map((part) => Number.parseInt(part, 10));
  if (processCounts?.some((count) => !Number.isInteger(count) || count < 1 || count > 8))
    throw new BenchUsageError("--processes is a number of service processes (1 to 8) or a list of them: 1,2,3");
  let postgresUrl: string | undefined;
  const postgres = values.postgres === true || values.db === "postgres";
  // `--durable` measures a server of the bench's own, as production runs it (not the test cluster's).
  if (postgres) postgresUrl = positionals[0] ?? (values.durable ? undefined : process.env.ROUNDTABLE_TEST_POSTGRES_URL);
  if (values.durable === true && !postgres) throw new BenchUsageError("--durable is for --db postgres");
  if (values.durable === true && postgresUrl)
    throw new BenchUsageError("--durable starts a server of its own: leave out the URL");
  const modelLatency = values["model-latency"] ?? "instant";
  if (modelLatency !== "instant" && modelLatency !== "real")
    throw new BenchUsageError("--model-latency is instant or real");
  const quick = values.quick === true;
  if (values.budgets === true) process.env.ROUNDTABLE_BENCH_BUDGETS = "1";
  const channel = values.channel ?? "telegram";
  if (channel !== "telegram" && channel !== "slack") throw new BenchUsageError("--channel is telegram or slack");
  if (values.channel !== undefined && processCounts === undefined && modelLatency !== "real")
    throw new BenchUsageError("--channel is for the scale-out runs (--processes) and --model-latency real");
  const perChat = values["per-chat"] === undefined ? undefined : Number.parseInt(values["per-chat"], 10);
  if (perChat !== undefined && !(Number.isInteger(perChat) && perChat >= 1 && perChat <= 100))
    throw new BenchUsageError("--per-chat is a number of messages (1 to 100)");
  const concurrency = values.concurrency === undefined ? 32 : Number.parseInt(values.concurrency, 10);
  if (!(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 1_000))
    throw new BenchUsageError("--concurrency is the service's queue.concurrency (1 to 1000)");
  const warmup = values.warmup === undefined ? undefined : Number.parseInt(values.warmup, 10);
  if (warmup !== undefined && !(Number.isInteger(warmup) && warmup >= 0 && warmup <= 100_000))
    throw new BenchUsageError("--warmup is a number of messages per process");
  const chats = values.chats === undefined ? undefined : Number.parseInt(values.chats, 10);
  if (chats !== undefined && !(Number.isInteger(chats) && chats >= 1 && chats <= 1_000))
    throw new BenchUsageError("--chats is a number of chats (1 to 1000)");
  if (values["heap-snapshot"] !== undefined && modelLatency !== "real")
    throw new BenchUsageError("--heap-snapshot is for --model-latency real");
  return {
    profileDirectory: values.profile,
    heapSnapshotDirectory: values["heap-snapshot"],
    hooks: values.hooks === undefined ? undefined : path.resolve(values.hooks),
    statementLog: values["statement-log"],
    heapSample: values["heap-sample"],
    postgresUrl,
    latencyMessages: quick ? 30 : 200,
    loadChats: chats ?? (quick ? 20 : 100),
    loadPerChat: 10,
    historyTurns: quick ? 5 : 20,
    approvals: quick ? 10 : 50,
    processCounts,
    channel,
    warmupPerProcess: warmup ?? (quick ? 40 : 300),
    startPostgres: postgres && postgresUrl === undefined,
    durable: values.durable === true,
    modelLatency,
    perChat,
    concurrency,
  };
}

/** A usage mistake or a missing prerequisite: one line, no stack. */
class BenchUsageError extends Error {}

/** Messages one after another in one chat, each sent when the previous one is answered. */
async function sequential(world: BenchWorld, chatId: number, count: number, tool = false): Promise<Exchange[]> {
  const done: Exchange[] = [];
  for (let index = 0; index < count; index++) done.push(await world.send(chatId, tool));
  return done;
}

const ms = (value: number) => `${round(value)} ms`;
const pair = (values: number[]) => `${round(quantile(values, 0.5))} / ${round(quantile(values, 0.99))} ms`;
const spans = (exchanges: Exchange[], from: keyof Exchange, to: keyof Exchange) =>
  exchanges.flatMap((exchange) => {
    const start = exchange[from];
    const end = exchange[to];
    return typeof start === "number" && typeof end === "number" ? [end - start] : [];
  });

async function statements(service: ServiceProcess): Promise<number | undefined> {
  return service.metric(statementsMetric);
}

const log = (text: string) => process.stderr.write(`bench: ${text}\n`);

/** Builds dist/, what `npm start` runs. */
function build(): void {
  log("building dist/ (what npm start runs)");
  const built = spawnSync(process.execPath, [path.join(repositoryRoot, "scripts", "build.mjs")], { stdio: "inherit" });
  if (built.status !== 0) throw new Error("npm run build failed");
}

async function main(): Promise<void> {
  const settings = readSettings();
  const directory = await mkdtemp(path.join(tmpdir(), "roundtable-bench-"));
  let throwaway: ThrowawayPostgres | undefined;
  try {
    if (settings.startPostgres) {
      log(`starting a throwaway PostgreSQL server${settings.durable ? " (fsync and synchronous_commit on)" : ""}`);
      throwaway = await startThrowawayPostgres(settings.durable);
      if (!throwaway)
        throw new BenchUsageError(
          "--db postgres needs a server: pass its URL (npm run bench -- --db postgres postgresql://…), set ROUNDTABLE_TEST_POSTGRES_URL, or install PostgreSQL (apt-get install postgresql) and the bench starts one",
        );
      settings.postgresUrl = throwaway.url;
    }
    await runBench(settings, directory);
  } finally {
    throwaway?.stop();
    await rm(directory, { recursive: true, force: true });
  }
}

async function runBench(settings: Settings, directory: string): Promise<void> {
  if (settings.modelLatency === "real") {
    if (settings.processCounts)
      throw new BenchUsageError("--model-latency real runs one process (leave out --processes)");
    build();
    await runRealModel({
      chats: settings.loadChats,
      perChat: settings.perChat ?? 3,
      channel: settings.channel,
      postgresUrl: settings.postgresUrl,
      concurrency: settings.concurrency,
      directory,
      profileDirectory: settings.profileDirectory,
      heapSnapshotDirectory: settings.heapSnapshotDirectory,
      heapSample: settings.heapSample,
      log,
    });
    return;
  }
  if (settings.processCounts) {
    if (!settings.postgresUrl) throw new BenchUsageError("--processes needs --db postgres (SQLite serves one process)");
    build();
    await runScaleOut({
      serverUrl: settings.postgresUrl,
      processCounts: settings.processCounts,
      chats: settings.loadChats,
      perChat: settings.loadPerChat,
      warmupPerProcess: settings.warmupPerProcess,
      channel: settings.channel,
      directory,
      log,
    });
    return;
  }
  const databaseUrl = settings.postgresUrl
    ? await freshPostgresDatabase(settings.postgresUrl)
    : `file:${path.join(directory, "bench.db")}`;
  const world = await BenchWorld.start();
  // A busy machine with 100 chats in flight answers each slowly: wait, the rate says how slowly.
  world.replyTimeoutMs = 120_000;
  const configFile = path.join(directory, "roundtable.yaml");
  const hooks = settings.hooks === undefined ? "" : `hooks: { module: ${JSON.stringify(settings.hooks)} }\n`;
  await writeFile(configFile, world.configYaml() + hooks);
  let service: ServiceProcess | undefined;
  try {
    log(`seeding ${historySizes.join(", ")} messages of history`);
    await seedHistory(
      databaseUrl,
      historySizes.map((count) => ({ chatId: 900_000 + count, count })),
    );

    build();
    log("starting the service");
    const spawnedAt = performance.now();
    service = await startServiceProcess({
      DATABASE_URL: databaseUrl,
      ROUNDTABLE_CONFIG: configFile,
      ROUNDTABLE_DATA_DIR: directory,
      ...(settings.profileDirectory
        ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(settings.profileDirectory)}` }
        : {}),
      ...(settings.statementLog
        ? statementLogEnv(
            settings.statementLog,
            settings.profileDirectory ? `--cpu-prof --cpu-prof-dir=${path.resolve(settings.profileDirectory)}` : "",
          )
        : {}),
      ...(settings.heapSample ? heapSampleEnv(settings.heapSample) : {}),
    });
    const exited = new Promise<never>((_, reject) =>
      service?.child.once("exit", (code) => reject(new Error(`the service exited (${code}): ${service?.stderr()}`))),
    );
    const coldStartMs = (await Promise.race([world.firstPollAt(), exited])) - spawnedAt;
    await sleep(2_000);
    const idleRss = treeRssMebibytes(service.pid);

    log(`latency: ${settings.latencyMessages} messages one after another`);
    await Promise.race([sequential(world, 1, 10), exited]); // warm-up
    const latency = await Promise.race([sequential(world, 1, settings.latencyMessages), exited]);

    const total = settings.loadChats * settings.loadPerChat;
    log(`load: ${settings.loadChats} chats in a closed loop, ${total} messages`);
    if (settings.statementLog || settings.heapSample) markStatements(service.pid);
    const cpuBefore = treeCpuMilliseconds(service.pid);
    const databaseCpu = settings.postgresUrl ? await DatabaseCpu.connect(databaseUrl) : undefined;
    await databaseCpu?.start();
    const loadStarted = performance.now();
    await Promise.race([
      Promise.all(
        Array.from({ length: settings.loadChats }, (_, index) =>
          sequential(world, 1_000 + index, settings.loadPerChat),
        ),
      ),
      exited,
    ]);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const cpuPerMessage = (treeCpuMilliseconds(service.pid) - cpuBefore) / total;
    if (settings.statementLog || settings.heapSample) markStatements(service.pid);
    const databaseCpuPerMessage = databaseCpu ? (await databaseCpu.stop()) / total : undefined;
    await databaseCpu?.close();
    const loadAverage = loadavg()[0] ?? Number.NaN;
    const rssAfterLoad = treeRssMebibytes(service.pid);

    log(`history: ${settings.historyTurns} turns in chats with ${historySizes.join(", ")} stored messages`);
    const history: { size: number; turnMs: number; statements: number | undefined }[] = [];
    for (const size of historySizes) {
      await Promise.race([world.send(900_000 + size), exited]); // the first read of a chat warms caches
      const before = await statements(service);
      const turns = await Promise.race([sequential(world, 900_000 + size, settings.historyTurns), exited]);
      const after = await statements(service);
      history.push({
        size,
        turnMs: quantile(spans(turns, "sentAt", "replyAt"), 0.5),
        statements: before === undefined || after === undefined ? undefined : (after - before) / turns.length,
      });
    }

    log(`approvals: ${settings.approvals} tool calls approved one after another`);
    const approvals = await Promise.race([sequential(world, 2, settings.approvals, true), exited]);

    const toModel = spans(latency, "sentAt", "modelRequestAt");
    const toReply = spans(latency, "lastChunkAt", "replyAt");
    const clickToTool = spans(approvals, "clickAt", "toolStartAt");
    const promptBytes = mean(latency.map((exchange) => mean(exchange.promptBytes)));
    const rows: FigureRow[] = [
      { key: "coldStartMs", name: "cold start (spawn → first getUpdates)", value: ms(coldStartMs), aim: "≤ 500 ms" },
      { key: "idleRssMiB", name: "idle resident memory", value: `${round(idleRss)} MiB`, aim: "≤ 100 MiB" },
      { key: "updateToModelMs", name: "update → model request p50 / p99", value: pair(toModel), aim: "≤ 5 / 20 ms" },
      {
        key: "lastChunkToReplyMs",
        name: "model's last chunk → reply p50 / p99",
        value: pair(toReply),
        aim: "≤ 2 / 10 ms",
      },
      { key: "cpuPerMessageMs", name: "CPU per answered message", value: ms(cpuPerMessage), aim: "≤ 5 ms" },
      ...(databaseCpuPerMessage === undefined
        ? []
        : [
            {
              key: "databaseCpuPerMessageMs",
              name: "PostgreSQL backends' CPU per answered message",
              value: ms(databaseCpuPerMessage),
              aim: "",
            },
          ]),
      {
        key: "repliesPerSecond",
        name: `replies/s, ${settings.loadChats} chats in a closed loop`,
        value: String(round(total / loadSeconds)),
        aim: "≥ 200",
      },
      {
        key: "rssAfterLoadMiB",
        name: `resident memory after ${total + settings.latencyMessages + 10} messages`,
        value: `${round(rssAfterLoad)} MiB`,
        aim: "≤ 200 MiB",
      },
      ...history.map((entry) => ({
        key: `turnAt${entry.size}`,
        name: `turn with ${entry.size.toLocaleString("en")} stored messages: time, SQL statements`,
        value: `${ms(entry.turnMs)}, ${entry.statements === undefined ? "n/a" : round(entry.statements)}`,
        aim: "10,000 ≤ 1.5 × 100",
      })),
      { key: "clickToToolMs", name: "approval click → tool start p50 / p99", value: pair(clickToTool), aim: "" },
      { key: "promptBytes", name: "prompt bytes per model request (mean)", value: String(round(promptBytes)), aim: "" },
    ];
    const title = `figure (${settings.postgresUrl ? "PostgreSQL" : "SQLite"}, Node ${process.versions.node}, ${cpus().length} cores)`;
    process.stdout.write(`${renderTable(rows, title)}\n`);
    await writeResults(path.join(repositoryRoot, "bench", "results.json"), {
      date: new Date().toISOString(),
      database: settings.postgresUrl ? "postgresql" : "sqlite",
      command: process.argv.slice(2).join(" "),
      figures: {
        coldStartMs: round(coldStartMs),
        idleRssMiB: round(idleRss),
        updateToModelMs: { p50: round(quantile(toModel, 0.5)), p99: round(quantile(toModel, 0.99)) },
        lastChunkToReplyMs: { p50: round(quantile(toReply, 0.5)), p99: round(quantile(toReply, 0.99)) },
        cpuPerMessageMs: round(cpuPerMessage),
        ...(databaseCpuPerMessage === undefined ? {} : { databaseCpuPerMessageMs: round(databaseCpuPerMessage) }),
        loadAverageDuringLoad: round(loadAverage),
        repliesPerSecond: round(total / loadSeconds),
        rssAfterLoadMiB: round(rssAfterLoad),
        history: history.map((entry) => ({
          storedMessages: entry.size,
          turnMs: round(entry.turnMs),
          statementsPerTurn: entry.statements === undefined ? null : round(entry.statements),
        })),
        clickToToolMs: { p50: round(quantile(clickToTool, 0.5)), p99: round(quantile(clickToTool, 0.99)) },
        promptBytesPerRequest: round(promptBytes),
      },
      table: rows,
    });
  } catch (error) {
    process.stderr.write(
      `bench: the service's last log lines:\n${service?.stderr().split("\n").slice(-15).join("\n")}\n`,
    );
    throw error;
  } finally {
    await service?.stop();
    await world.close();
    if (settings.postgresUrl) await dropPostgresDatabase(settings.postgresUrl, databaseUrl).catch(() => undefined);
  }
}

main().catch((error: unknown) => {
  if (error instanceof BenchUsageError) {
    process.stderr.write(`bench: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
