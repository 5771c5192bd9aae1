import { writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { BenchWorld, type Exchange } from "./bench-world.js";
import { heapSampleEnv } from "./heap-sample.js";
import { realAnswerSeconds, realModel } from "./model-latency.js";
import { dropPostgresDatabase, freshPostgresDatabase } from "./postgres-database.js";
import { treeCpuMilliseconds, treeRssMebibytes } from "./process-stats.js";
import { type FigureRow, renderTable, writeResults } from "./report.js";
import { repositoryRoot, startServiceProcess } from "./service-process.js";
import { SlackBenchWorld } from "./slack-bench-world.js";
import { markStatements } from "./statement-log.js";
import { quantile, round } from "./statistics.js";
import { ConnectionSampler, postgresDurability } from "./throwaway-postgres.js";

export interface RealModelSettings {
  chats: number;
  /** Messages each chat sends, one after another (each when the last is answered). */
  perChat: number;
  channel: "telegram" | "slack";
  /** A PostgreSQL server (a fresh database is made on it); undefined: SQLite. */
  postgresUrl: string | undefined;
  /** `queue.concurrency` of the service. */
  concurrency: number;
  directory: string;
  profileDirectory: string | undefined;
  /** Where a heap snapshot of the service is written at the ramp's end (the most answers in flight). */
  heapSnapshotDirectory: string | undefined;
  /** Where what the service allocates during the load is written (bench/heap-sample.ts). */
  heapSample: string | undefined;
  log: (text: string) => void;
}

interface World {
  configYaml(): string;
  send(chatId: number): Promise<Exchange>;
  close(): Promise<void>;
  streams: BenchWorld["streams"];
  replyTimeoutMs: number;
  /** Connections the service opened to the platform's fake, where the world counts them. */
  platformConnections?: number;
  /** Slack: event deliveries refused or not answered within 3 s, and sent again. */
  retries?: number;
}

/**
 * `npm run bench -- --model-latency real`: one service process, its fake model as slow as a real
 * one (800 ms to the first token, 50 tokens/s, 400 tokens), `chats` chats in a closed loop.
 * What bounds it is how many answers it keeps in flight (docs/performance.md, "Real model speeds").
 */
export async function runRealModel(settings: RealModelSettings): Promise<void> {
  const { log } = settings;
  const world: World =
    settings.channel === "slack" ? await SlackBenchWorld.start("real") : await BenchWorld.start("real");
  world.replyTimeoutMs = 180_000;
  const databaseUrl = settings.postgresUrl
    ? await freshPostgresDatabase(settings.postgresUrl)
    : `file:${path.join(settings.directory, "bench.db")}`;
  const configFile = path.join(settings.directory, "roundtable.yaml");
  await writeFile(configFile, `${world.configYaml()}queue: { concurrency: ${settings.concurrency} }\n`);
  const durability = settings.postgresUrl ? await postgresDurability(settings.postgresUrl) : undefined;
  log(`starting the service (${settings.postgresUrl ? `PostgreSQL, ${durability}` : "SQLite"}, ${settings.channel})`);
  const service = await startServiceProcess({
    DATABASE_URL: databaseUrl,
    ROUNDTABLE_CONFIG: configFile,
    ROUNDTABLE_DATA_DIR: settings.directory,
    ...nodeOptionsOf(settings),
  });
  const exited = new Promise<never>((_, reject) =>
    service.child.once("exit", (code) => reject(new Error(`the service exited (${code}): ${service.stderr()}`))),
  );
  try {
    if (world instanceof SlackBenchWorld) world.setTargets([service.port]);
    await Promise.race([waitReady(service.port), exited]);
    log("warm-up: 5 chats, one message each");
    await Promise.race([Promise.all([1, 2, 3, 4, 5].map((chat) => world.send(chat))), exited]);
    const total = settings.chats * settings.perChat;
    log(`load: ${settings.chats} chats in a closed loop, ${total} messages of ~${realAnswerSeconds} s each`);
    const connections = settings.postgresUrl ? await ConnectionSampler.connect(databaseUrl) : undefined;
    connections?.start();
    if (settings.heapSample) markStatements(service.pid);
    const statementsBefore = await service.metric("roundtable_database_statements_total");
    const cpuBefore = treeCpuMilliseconds(service.pid);
    const benchCpuBefore = process.cpuUsage();
    const counted: World = world;
    const connectionsBefore = counted.platformConnections;
    const retriesBefore = counted.retries;
    let rssMax = treeRssMebibytes(service.pid);
    const rssTimer = setInterval(() => {
      rssMax = Math.max(rssMax, treeRssMebibytes(service.pid));
    }, 1_000);
    const started = performance.now();
    // The chats start one after another over one answer's time (no platform sends a thousand
    // messages in one millisecond), then each writes again as soon as it is answered.
    const rampMs = realAnswerSeconds * 1_000;
    let firstDoneAt: number | undefined;
    let sampling = false;
    const exchanges = (
      await Promise.race([
        Promise.all(
          Array.from({ length: settings.chats }, async (_, index) => {
            await sleep((index * rampMs) / settings.chats);
            if (!sampling) {
              sampling = true;
              setTimeout(() => world.streams.sample(), rampMs).unref();
              // The snapshot pauses the service for seconds: the figures of such a run mean little.
              if (settings.heapSnapshotDirectory)
                setTimeout(() => process.kill(service.pid, "SIGUSR1"), rampMs + 2_000).unref();
            }
            const done: Exchange[] = [];
            for (let count = 0; count < settings.perChat; count++) done.push(await world.send(10_000 + index));
            firstDoneAt ??= performance.now();
            return done;
          }),
        ),
        exited,
      ])
    ).flat();
    const inFlight = world.streams.stop();
    if (settings.heapSample) markStatements(service.pid);
    // The steady state: from the end of the ramp until the first chat is done (the load thins after it).
    const windowStart = started + rampMs;
    const windowEnd = Math.max(firstDoneAt ?? performance.now(), windowStart + 1);
    const inWindow = exchanges.filter(
      (exchange) => exchange.replyAt !== undefined && exchange.replyAt >= windowStart && exchange.replyAt <= windowEnd,
    ).length;
    const seconds = (windowEnd - windowStart) / 1_000;
    clearInterval(rssTimer);
    const cpuPerMessage = (treeCpuMilliseconds(service.pid) - cpuBefore) / total;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const benchCpuPerMessage = (benchCpu.user + benchCpu.system) / 1_000 / total;
    const statementsAfter = await service.metric("roundtable_database_statements_total");
    const statementsPerMessage =
      statementsBefore === undefined || statementsAfter === undefined
        ? undefined
        : (statementsAfter - statementsBefore) / total;
    const loadAverage = loadavg()[0] ?? Number.NaN;
    const platformConnections =
      counted.platformConnections === undefined || connectionsBefore === undefined
        ? undefined
        : counted.platformConnections - connectionsBefore;
    const maxConnections = await connections?.stop();
    const retries =
      counted.retries === undefined || retriesBefore === undefined ? undefined : counted.retries - retriesBefore;
    const repliesPerSecond = inWindow / seconds;
    const aim = (0.9 * settings.chats) / realAnswerSeconds;
    const firstWords = spans(exchanges, "firstWordsAt");
    const finalEdit = spans(exchanges, "replyAt");
    // Where a message's time goes: before its model call, the call (the fake's), after it.
    const phases = {
      toModel: spans(exchanges, "modelRequestAt"),
      model: spans(exchanges, "lastChunkAt", "modelRequestAt"),
      afterModel: spans(exchanges, "replyAt", "lastChunkAt"),
    };
    const rows: FigureRow[] = [
      {
        key: "repliesPerSecond",
        name: `replies/s, ${settings.chats} chats in a closed loop (steady state)`,
        value: String(round(repliesPerSecond)),
        aim: `≥ ${round(aim)} (90 % of ${settings.chats} / ${realAnswerSeconds} s)`,
      },
      {
        key: "answersInFlight",
        name: "answers in flight (model streams open): mean / max",
        value: `${round(inFlight.mean)} / ${inFlight.max}`,
        aim: `≈ ${settings.chats}`,
      },
      { key: "cpuPerMessageMs", name: "CPU per answered message", value: `${round(cpuPerMessage)} ms`, aim: "" },
      {
        key: "benchCpuPerMessageMs",
        name: "the bench's own CPU per message (its fakes, on the same cores)",
        value: `${round(benchCpuPerMessage)} ms`,
        aim: "",
      },
      {
        key: "statementsPerMessage",
        name: "SQL statements per answered message",
        value: statementsPerMessage === undefined ? "n/a" : String(round(statementsPerMessage)),
        aim: "",
      },
      {
        key: "rssMaxMiB",
        name: "resident memory, largest under load",
        value: `${round(rssMax)} MiB`,
        aim: "≤ 300 MiB",
      },
      ...(maxConnections === undefined
        ? []
        : [
            {
              key: "postgresConnections",
              name: "PostgreSQL connections, largest",
              value: String(maxConnections),
              aim: "≤ the pool (10)",
            },
          ]),
      ...(retries === undefined
        ? []
        : [
            {
              key: "eventsSentAgain",
              name: "events sent again (refused, or not answered within Slack's 3 s)",
              value: String(retries),
              aim: "0",
            },
          ]),
      ...(platformConnections === undefined
        ? []
        : [
            {
              key: "platformConnections",
              name: `connections opened to ${settings.channel}'s fake under load`,
              value: String(platformConnections),
              aim: "",
            },
          ]),
      {
        key: "firstWordsMs",
        name: "message → first streamed words p50 / p99",
        value: pair(firstWords),
        aim: `≈ ${realModel.firstTokenMs} ms`,
      },
      {
        key: "finalEditMs",
        name: "message → final edit p50 / p99",
        value: pair(finalEdit),
        aim: `≈ ${round(realAnswerSeconds * 1_000)} ms`,
      },
      {
        key: "phasesMs",
        name: "p50 / p99: message → model request; the model's stream; its last token → final edit",
        // The Slack bench's world does not record the model's moments.
        value: [phases.toModel, phases.model, phases.afterModel]
          .map((values) => (values.length === 0 ? "not recorded" : pair(values)))
          .join("; "),
        aim: "",
      },
      {
        key: "loadAverage",
        name: "machine load average (1 min) at the end",
        value: String(round(loadAverage)),
        aim: "",
      },
    ];
    const title = `real model speed (${settings.postgresUrl ? `PostgreSQL, ${durability}` : "SQLite"}, ${settings.channel}, queue.concurrency ${settings.concurrency}, Node ${process.versions.node}, ${cpus().length} cores)`;
    process.stdout.write(`${renderTable(rows, title)}\n`);
    await writeResults(path.join(repositoryRoot, "bench", "real-model-results.json"), {
      date: new Date().toISOString(),
      database: settings.postgresUrl ? "postgresql" : "sqlite",
      durability,
      channel: settings.channel,
      chats: settings.chats,
      messages: total,
      command: process.argv.slice(2).join(" "),
      figures: {
        repliesPerSecond: round(repliesPerSecond),
        answersInFlight: { mean: round(inFlight.mean), max: inFlight.max },
        cpuPerMessageMs: round(cpuPerMessage),
        benchCpuPerMessageMs: round(benchCpuPerMessage),
        statementsPerMessage: statementsPerMessage === undefined ? null : round(statementsPerMessage),
        rssMaxMiB: round(rssMax),
        postgresConnectionsMax: maxConnections ?? null,
        platformConnections: platformConnections ?? null,
        eventsSentAgain: retries ?? null,
        firstWordsMs: { p50: round(quantile(firstWords, 0.5)), p99: round(quantile(firstWords, 0.99)) },
        finalEditMs: { p50: round(quantile(finalEdit, 0.5)), p99: round(quantile(finalEdit, 0.99)) },
        phasesMs: Object.fromEntries(
          Object.entries(phases).map(([name, values]) => [
            name,
            values.length === 0 ? null : { p50: round(quantile(values, 0.5)), p99: round(quantile(values, 0.99)) },
          ]),
        ),
        loadAverage: round(loadAverage),
      },
      table: rows,
    });
  } catch (error) {
    log(`the service's last log lines:\n${service.stderr().split("\n").slice(-15).join("\n")}`);
    throw error;
  } finally {
    await service.stop();
    await world.close();
    if (settings.postgresUrl) await dropPostgresDatabase(settings.postgresUrl, databaseUrl).catch(() => undefined);
  }
}

const pair = (values: number[]) => `${round(quantile(values, 0.5))} / ${round(quantile(values, 0.99))} ms`;

type Moment = "sentAt" | "modelRequestAt" | "firstWordsAt" | "lastChunkAt" | "replyAt";

/** Milliseconds from `from` to `to` of each exchange that went through both. */
function spans(exchanges: Exchange[], to: Moment, from: Moment = "sentAt"): number[] {
  return exchanges.flatMap((exchange) => {
    const start = exchange[from];
    const end = exchange[to];
    return typeof start === "number" && typeof end === "number" ? [end - start] : [];
  });
}

/** Waits for the service's `/readyz` to answer 200. */
async function waitReady(port: number): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error("the service did not get ready within 30 s");
}

/** The service's `node` options (and environment) for `--profile`, `--heap-snapshot` and `--heap-sample`. */
function nodeOptionsOf(settings: RealModelSettings): Record<string, string> {
  const options = [
    ...(settings.profileDirectory ? [`--cpu-prof --cpu-prof-dir=${path.resolve(settings.profileDirectory)}`] : []),
    ...(settings.heapSnapshotDirectory
      ? [`--heapsnapshot-signal=SIGUSR1 --diagnostic-dir=${path.resolve(settings.heapSnapshotDirectory)}`]
      : []),
  ];
  if (settings.heapSample) return heapSampleEnv(settings.heapSample, options.join(" "));
  return options.length > 0 ? { NODE_OPTIONS: options.join(" ") } : {};
}
