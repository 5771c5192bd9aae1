import { mkdir, readFile, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { BenchWorld, type Exchange } from "./bench-world.js";
import { DatabaseCpu } from "./postgres-cpu.js";
import { dropPostgresDatabase, freshPostgresDatabase } from "./postgres-database.js";
import { treeCpuMilliseconds } from "./process-stats.js";
import { type FigureRow, renderTable, writeResults } from "./report.js";
import { repositoryRoot, type ServiceProcess, startServiceProcess } from "./service-process.js";
import { SlackBenchWorld } from "./slack-bench-world.js";
import { quantile, round } from "./statistics.js";

/** How long each run measures the processes' CPU with nothing to do. */
const idleSeconds = 10;
/**
 * How long the processes rest after the warm-up before their idle CPU is measured: V8's
 * memory reducer collects the load's garbage some 5 to 10 s after it (about 0.2 s of CPU on its
 * worker threads, bench/idle-cpu.ts --windows), the load's cost, not the idle process's.
 */
const settleSeconds = 15;

/** Where messages come from: Telegram long polling (one process polls) or Slack HTTP events (every process). */
export type ScaleOutChannel = "telegram" | "slack";

/** What a run needs of its world, either channel's. */
interface ScaleWorld {
  replyTimeoutMs: number;
  configYaml(): string;
  send(chatId: number): Promise<Exchange>;
  close(): Promise<void>;
}

export interface ScaleOutSettings {
  /** The PostgreSQL server; each N runs on a fresh database of it. */
  serverUrl: string;
  /** How many service processes, one run each (`--processes 1,2,3`). */
  processCounts: number[];
  chats: number;
  perChat: number;
  /**
   * Warm-up messages for each process before anything is measured, so that every process of
   * N has seen (at least) as many as the one process of N = 1: a production process runs for
   * days, its code long optimized and its chats long met. Every N gets the same warm-up (this
   * many for each process of the largest N), in the load's own chats.
   */
  warmupPerProcess: number;
  channel: ScaleOutChannel;
  directory: string;
  log(text: string): void;
}

/** What one run with N processes measured. */
export interface ScaleOutFigures {
  channel: ScaleOutChannel;
  processes: number;
  /** Warm-up messages, in the load's chats, before the idle and load measurements (the same for every N). */
  warmupMessages: number;
  messages: number;
  repliesPerSecond: number;
  /** Each process's CPU (its process tree) per answered message, the polling one first. */
  cpuPerMessageMsByProcess: number[];
  /** SQL statements each process sent per answered message (its share of the work included). */
  statementsPerMessageByProcess: number[];
  /** The share of the events each process received (Slack: the round robin; Telegram: the polling one). */
  eventShareByProcess: number[];
  /** The share of the turns each process ran (graphile-worker spreads the steps). */
  turnShareByProcess: number[];
  /** Each process's CPU while no message is in flight (pollers, sweeps, timers), ms per second. */
  idleCpuMsPerSecondByProcess: number[];
  /** All service processes together, per answered message. */
  serviceCpuPerMessageMs: number;
  /** The PostgreSQL backends of the bench's database, per answered message. */
  databaseCpuPerMessageMs: number;
  /** Sent → reply in the chat. */
  latencyMs: { p50: number; p99: number };
  /** The machine's 1-minute load average when the load started (the machine may be shared). */
  loadAverage: number;
}

/**
 * N service processes on one PostgreSQL database, as in production: every process runs jobs
 * (graphile-worker hands each chat's steps to whichever process is free), one of them polls
 * Telegram (the singleton lock). A closed loop of `chats` chats, each sending its next message
 * when the previous one is answered; CPU per process and of the database's backends over the
 * load only.
 */
export async function runScaleOut(settings: ScaleOutSettings): Promise<ScaleOutFigures[]> {
  const results: ScaleOutFigures[] = [];
  for (const processes of settings.processCounts) results.push(await runOnce(settings, processes));
  const rows: FigureRow[] = results.flatMap((figures) => {
    const n = figures.processes;
    return [
      {
        key: `replies${n}`,
        name: `N=${n}: replies/s, ${settings.chats} chats`,
        value: String(figures.repliesPerSecond),
        aim: n === 1 ? "≥ 200" : "",
      },
      {
        key: `cpu${n}`,
        name: `N=${n}: CPU per message, each process (polling first)`,
        value: figures.cpuPerMessageMsByProcess.map((value) => `${value} ms`).join(" + "),
        aim: "",
      },
      {
        key: `statements${n}`,
        name: `N=${n}: SQL statements per message, each process`,
        value: figures.statementsPerMessageByProcess.join(" + "),
        aim: "",
      },
      {
        key: `eventShare${n}`,
        name: `N=${n}: share of the events received, each process`,
        value: figures.eventShareByProcess.join(" / "),
        aim: "",
      },
      {
        key: `turnShare${n}`,
        name: `N=${n}: share of the turns, each process`,
        value: figures.turnShareByProcess.join(" / "),
        aim: "",
      },
      {
        key: `idleCpu${n}`,
        name: `N=${n}: idle CPU, each process (ms per second)`,
        value: figures.idleCpuMsPerSecondByProcess.join(" + "),
        aim: "",
      },
      {
        key: `serviceCpu${n}`,
        name: `N=${n}: CPU per message, all processes`,
        value: `${figures.serviceCpuPerMessageMs} ms`,
        aim: n === 1 ? "≤ 5 ms" : "≤ 1.2 × N=1",
      },
      {
        key: `databaseCpu${n}`,
        name: `N=${n}: PostgreSQL backends' CPU per message`,
        value: `${figures.databaseCpuPerMessageMs} ms`,
        aim: "",
      },
      {
        key: `latency${n}`,
        name: `N=${n}: sent → reply p50 / p99`,
        value: `${figures.latencyMs.p50} / ${figures.latencyMs.p99} ms`,
        aim: "",
      },
      { key: `load${n}`, name: `N=${n}: load average at start`, value: String(figures.loadAverage), aim: "" },
    ];
  });
  const title = `scale-out, ${settings.channel} (PostgreSQL, Node ${process.versions.node}, ${cpus().length} cores)`;
  process.stdout.write(`${renderTable(rows, title)}\n`);
  // One block per channel: a run of one channel keeps the other's last results.
  const file = path.join(repositoryRoot, "bench", "scale-out.json");
  const previous = await readFile(file, "utf8")
    .then((text) => JSON.parse(text) as Record<string, unknown>)
    .catch(() => ({}));
  const kept = Object.fromEntries(
    Object.entries(previous).filter(([key]) => key !== settings.channel && (key === "telegram" || key === "slack")),
  );
  await writeResults(file, {
    ...kept,
    [settings.channel]: {
      date: new Date().toISOString(),
      command: process.argv.slice(2).join(" "),
      channel: settings.channel,
      runs: results,
      table: rows,
    },
  });
  return results;
}

async function runOnce(settings: ScaleOutSettings, processes: number): Promise<ScaleOutFigures> {
  const { log } = settings;
  const databaseUrl = await freshPostgresDatabase(settings.serverUrl);
  const slack = settings.channel === "slack" ? await SlackBenchWorld.start() : undefined;
  const telegram = slack ? undefined : await BenchWorld.start();
  const world: ScaleWorld | undefined = slack ?? telegram;
  if (!world) throw new Error("no world");
  world.replyTimeoutMs = 120_000;
  const directory = path.join(settings.directory, `n${processes}`);
  await mkdir(directory, { recursive: true });
  const configFile = path.join(directory, "roundtable.yaml");
  await writeFile(configFile, world.configYaml());
  const services: ServiceProcess[] = [];
  const databaseCpu = await DatabaseCpu.connect(databaseUrl);
  try {
    const start = async (index: number) => {
      const data = path.join(directory, `p${index}`);
      await mkdir(data, { recursive: true });
      const service = await startServiceProcess({
        DATABASE_URL: databaseUrl,
        ROUNDTABLE_CONFIG: configFile,
        ROUNDTABLE_DATA_DIR: data,
      });
      service.child.once("exit", (code) => {
        if (code !== 0 && code !== null) log(`process ${index} exited (${code}): ${service.stderr().slice(-2_000)}`);
      });
      services.push(service);
      return service;
    };
    if (telegram) {
      log(`N=${processes}: starting the polling process (it migrates the database)`);
      await start(0);
      await telegram.firstPollAt();
    } else {
      log(`N=${processes}: starting the first process (it migrates the database)`);
      await healthy(await start(0));
    }
    for (let index = 1; index < processes; index++) await start(index);
    for (const service of services) await healthy(service);
    slack?.setTargets(services.map((service) => service.port));
    await sleep(2_000);
    // The load's own chats, so no process meets a chat for the first time while measured (a
    // production process has long met its chats); as many messages for every N (the same
    // history for the load), at least `warmupPerProcess` for each process of the largest N.
    const largest = Math.max(...settings.processCounts);
    const warmupPerChat = Math.ceil((settings.warmupPerProcess * largest) / settings.chats);
    const warmupMessages = warmupPerChat * settings.chats;
    log(`N=${processes}: warm-up, ${warmupMessages} messages in the load's chats`);
    await Promise.all(
      Array.from({ length: settings.chats }, (_, index) => sequential(world, 10_000 + index, warmupPerChat)),
    );

    log(`N=${processes}: rest for ${settleSeconds} s, then idle for ${idleSeconds} s`);
    await sleep(settleSeconds * 1000);
    const idleBefore = services.map((service) => treeCpuMilliseconds(service.pid));
    await sleep(idleSeconds * 1000);
    const idle = services.map(
      (service, index) => (treeCpuMilliseconds(service.pid) - (idleBefore[index] ?? 0)) / idleSeconds,
    );

    const total = settings.chats * settings.perChat;
    log(`N=${processes}: ${settings.chats} chats in a closed loop, ${total} messages`);
    const loadAverage = round(loadavg()[0] ?? Number.NaN);
    const counters = () =>
      Promise.all(
        services.map(async (service) => ({
          statements: (await service.metric("roundtable_database_statements_total")) ?? Number.NaN,
          turns: (await service.metric("roundtable_turns_ended_total")) ?? 0,
        })),
      );
    const countersBefore = await counters();
    const eventsBefore = slack
      ? services.map((service) => slack.deliveriesByTarget.get(`http://127.0.0.1:${service.port}/slack/events`) ?? 0)
      : [];
    const cpuBefore = services.map((service) => treeCpuMilliseconds(service.pid));
    await databaseCpu.start();
    const started = performance.now();
    const exchanges = (
      await Promise.all(
        Array.from({ length: settings.chats }, (_, index) => sequential(world, 10_000 + index, settings.perChat)),
      )
    ).flat();
    const seconds = (performance.now() - started) / 1000;
    const databaseMs = await databaseCpu.stop();
    const cpu = services.map((service, index) => treeCpuMilliseconds(service.pid) - (cpuBefore[index] ?? 0));
    const countersAfter = await counters();
    const delta = (index: number, key: "statements" | "turns") =>
      (countersAfter[index]?.[key] ?? Number.NaN) - (countersBefore[index]?.[key] ?? Number.NaN);
    const turns = services.reduce((sum, _, index) => sum + delta(index, "turns"), 0);
    const deliveries = (counts: Map<string, number> | undefined) =>
      services.map((service, index) =>
        counts ? (counts.get(`http://127.0.0.1:${service.port}/slack/events`) ?? 0) : index === 0 ? total : 0,
      );
    const eventsAfter = deliveries(slack?.deliveriesByTarget);
    const events = eventsAfter.map((count, index) => count - (eventsBefore[index] ?? 0));
    const allEvents = events.reduce((sum, count) => sum + count, 0);
    const latencies = exchanges.flatMap((exchange) =>
      exchange.replyAt === undefined ? [] : [exchange.replyAt - exchange.sentAt],
    );
    const figures: ScaleOutFigures = {
      channel: settings.channel,
      processes,
      warmupMessages,
      messages: total,
      repliesPerSecond: round(total / seconds),
      cpuPerMessageMsByProcess: cpu.map((value) => round(value / total)),
      statementsPerMessageByProcess: services.map((_, index) => round(delta(index, "statements") / total)),
      eventShareByProcess: events.map((count) => round(count / allEvents)),
      turnShareByProcess: services.map((_, index) => round(delta(index, "turns") / turns)),
      idleCpuMsPerSecondByProcess: idle.map(round),
      serviceCpuPerMessageMs: round(cpu.reduce((sum, value) => sum + value, 0) / total),
      databaseCpuPerMessageMs: round(databaseMs / total),
      latencyMs: { p50: round(quantile(latencies, 0.5)), p99: round(quantile(latencies, 0.99)) },
      loadAverage,
    };
    log(`N=${processes}: ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    await databaseCpu.close().catch(() => undefined);
    await world.close();
    await dropPostgresDatabase(settings.serverUrl, databaseUrl).catch(() => undefined);
  }
}

/** Messages one after another in one chat, each sent when the previous one is answered. */
async function sequential(world: ScaleWorld, chatId: number, count: number): Promise<Exchange[]> {
  const done: Exchange[] = [];
  for (let index = 0; index < count; index++) done.push(await world.send(chatId));
  return done;
}

/** Waits until the process answers `/healthz` (it opened its database and serves HTTP). */
async function healthy(service: ServiceProcess): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (service.child.exitCode !== null) throw new Error(`a service process exited: ${service.stderr()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${service.port}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`a service process did not become healthy: ${service.stderr()}`);
}
