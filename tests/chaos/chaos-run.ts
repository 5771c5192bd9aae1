import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, realpathSync, writeSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { freePort } from "../../bench/service-process.js";
import { cliEnvironment, repositoryRoot } from "../cli/run-roundtable.js";
import { type DoubleVerdict, judgeDoubles, type Life, type Post } from "./judge-doubles.js";
import { startTcpProxy, type TcpProxy } from "../fakes/tcp-proxy.js";
import {
  type FaultKind,
  type FaultRow,
  type FaultTargets,
  type FaultWindow,
  faultApplies,
  makeFault,
  recoveryByKind,
  touchedByKind,
} from "./chaos-faults.js";
import { type AutonomousReport, firstMinuteUp, judgeAutonomous, TriggerSender } from "./autonomous-chaos.js";
import { SlackChaosWorld } from "./slack-chaos-world.js";
import { chaosAgents, type Exchange, TelegramChaosWorld } from "./telegram-chaos-world.js";

export interface ChaosSettings {
  /** A fresh, empty database: PostgreSQL's URL, or SQLite's (`file:…`, one process). */
  databaseUrl: string;
  /**
   * `telegram` (default): the service long-polls the Telegram fake. `slack`: the Slack fake
   * delivers each event to a random live process and retries like Slack; Slack posts are
   * exactly-once, so no double is allowed.
   */
  platform?: "telegram" | "slack";
  processes: number;
  chats: number;
  /**
   * Slack: messages per chat, one after another. Telegram: at least this many per chat, in
   * bursts of 1 to 3 back to back to alice or bob (with {@link untilKills}, until that many kills).
   */
  messagesPerChat: number;
  /** Telegram: send bursts until this many kills were made (then each chat ends its burst). */
  untilKills?: number;
  /** Slack: every how many messages one needs an approved tool call. Telegram: one burst in this many ends with one. */
  toolEvery: number;
  /** Pause between two SIGKILLs, at random between these bounds. */
  killEveryMs: [number, number];
  /** Count that pause from when every process is ready (answers `/readyz`), not from the last kill. */
  pauseFromReady?: boolean;
  /**
   * Telegram: a double is the platform's window (no idempotency key) only when the process that
   * sent the first copy was SIGKILLed at most this long after the fake answered it.
   */
  windowMs: number;
  /** When set: each process's log (`p<slot>-<pid>.log`) and the harness's record go here. */
  logDirectory?: string;
  /** The processes' LOG_LEVEL (default warn). */
  logLevel?: string;
  log?: (line: string) => void;
  /**
   * The faults to make, one each pause, in turn (default only `kill`); those the run cannot
   * make (no proxy on SQLite, no data directory for `pg-restart`) are left out. With
   * {@link untilKills}, the count is of all faults.
   */
  faults?: FaultKind[];
  /** PostgreSQL's data directory, for `pg-restart` (`pg_ctl restart -m fast`). */
  postgresData?: string;
  /**
   * Telegram: a schedule on `* * * * *` and a trigger, each in a chat of its own, with signed
   * deliveries POSTed every ~2 s during the load (see autonomous-chaos.ts).
   */
  autonomous?: boolean;
  /** Telegram: `dm` routes every card to one approver's private chat (`approvals.route: dm`), pressed there. */
  approvalRoute?: "dm";
}

export interface ChaosReport {
  sent: number;
  kills: number;
  /** Messages with no answer in the chat. */
  lost: string[];
  /** Messages answered more than once. */
  doubled: string[];
  /** The doubles explained by the platform's window (the sender killed just after its answer). */
  doubledInWindow: DoubleVerdict[];
  /** Every other double: a bug. */
  doubledUnexplained: DoubleVerdict[];
  /** Tool calls that ran more than once. */
  toolsDoubled: string[];
  /** Bot messages that are not a complete answer (a draft left behind, a cut text). */
  halfWritten: string[];
  /** Chats whose answers are not in the order of their messages. */
  outOfOrder: number[];
  /** Telegram: answers (`<token> by the turn of <message>`) that a turn of another message wrote. */
  wrongTurn: string[];
  /** Telegram: tool calls asked for whose tool never ran (and that were not interrupted). */
  toolsLost: string[];
  /** Telegram: tool calls a kill cut after they were marked running: closed as `interrupted`, not run. */
  toolsInterrupted: string[];
  /** Telegram: tool runs in all. */
  toolRuns: number;
  /**
   * Telegram: the longest a message waited for its answer after the restart of a process killed
   * while it waited (from the moment the new process was ready, or the message was sent).
   */
  maxWaitAfterRestartMs: number;
  /** Telegram: the messages that waited more than 10 s after such a restart. */
  slowAfterRestart: string[];
  /** Every fault made (kills included), in order. */
  faults: FaultWindow[];
  /** Processes that exited without being killed (must be none). */
  unexpectedExits: number;
  /** Telegram: one row a fault kind (see chaos-faults.ts). */
  faultRows: FaultRow[];
  /** With {@link ChaosSettings.autonomous}: the schedule's and the trigger's figures. */
  autonomous?: AutonomousReport;
}

const nodeBinary = realpathSync(process.execPath);
const loader = pathToFileURL(path.join(repositoryRoot, "node_modules/tsx/dist/loader.mjs")).href;

/**
 * The real service on PostgreSQL in several processes, on one Telegram fake (long polling) or
 * one Slack fake (HTTP events), while a killer SIGKILLs a random process now and then (and
 * starts it again). Each chat sends its
 * messages one after another (the next when the previous is answered); every `toolEvery`-th asks
 * for a tool that needs approval, approved at once. At the end, the chats are read back.
 */
export async function runChaos(settings: ChaosSettings): Promise<ChaosReport> {
  const log = settings.log ?? (() => undefined);
  const directory = await mkdtemp(path.join(tmpdir(), "roundtable-chaos-"));
  const running: (ChildProcess | undefined)[] = [];
  const lives: Life[] = [];
  const ports = new Map<number, number>();
  const world =
    settings.platform === "slack" ? await SlackChaosWorld.start() : await TelegramChaosWorld.start(() => lives);
  if (world instanceof SlackChaosWorld)
    world.liveTargets = () =>
      lives
        .filter((life) => life.killedAt === undefined && ports.has(life.pid))
        .map((life) => `http://127.0.0.1:${ports.get(life.pid)}/slack/events`);
  const wanted = settings.faults ?? ["kill"];
  const postgres = !settings.databaseUrl.startsWith("file:");
  let proxy: TcpProxy | undefined;
  if (postgres && wanted.includes("pg-cut")) {
    const url = new URL(settings.databaseUrl);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  }
  const serviceDatabaseUrl = proxy ? proxy.urlFor(settings.databaseUrl) : settings.databaseUrl;
  const readyzSamples: { at: number; ok: boolean }[] = [];
  let unexpectedExits = 0;
  const configFile = path.join(directory, "roundtable.yaml");
  const autonomous = settings.autonomous === true && world instanceof TelegramChaosWorld;
  if (world instanceof TelegramChaosWorld) world.routeCardsToDm = settings.approvalRoute === "dm";
  await writeFile(
    configFile,
    world instanceof TelegramChaosWorld && autonomous
      ? world.configYaml({ chats: settings.chats })
      : world.configYaml(),
  );
  const allReady = () =>
    Array.from({ length: settings.processes }, (_, slot) => lives.findLast((life) => life.slot === slot)).every(
      (life) => life?.readyAt !== undefined,
    );
  const readyAt = (life: Life, port: number) =>
    void (async () => {
      while (life.killedAt === undefined && !finished) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) {
            life.readyAt = performance.now();
            return;
          }
        } catch {
          // not listening yet
        }
        await sleep(100);
      }
    })();
  const start = async (slot: number): Promise<void> => {
    const port = await freePort();
    const child = spawn(nodeBinary, ["--import", loader, path.join(repositoryRoot, "src/cli/main.ts"), "start"], {
      cwd: directory,
      env: cliEnvironment({
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: settings.logLevel ?? "warn",
        DATABASE_URL: serviceDatabaseUrl,
        ROUNDTABLE_CONFIG: configFile,
      }),
      stdio: settings.logDirectory === undefined ? "ignore" : ["ignore", "pipe", "pipe"],
    });
    running[slot] = child;
    if (child.pid !== undefined) {
      const life: Life = { slot, pid: child.pid, startedAt: performance.now() };
      lives.push(life);
      ports.set(child.pid, port);
      readyAt(life, port);
      keepOutput(child, settings.logDirectory, `p${slot}-${child.pid}.log`);
      // The service must never exit by itself (a database that went away included).
      child.once("exit", (code, signal) => {
        if (life.killedAt !== undefined || finished || stopKilling) return;
        unexpectedExits += 1;
        life.killedAt = performance.now();
        log(`process ${slot} exited by itself (${signal ?? code}); starting it again`);
        void sleep(500).then(() => start(slot));
      });
    }
    // A spawn that fails (the machine is busy) is tried again: a slot must not stay empty.
    child.once("error", (error) => {
      log(`process ${slot} did not start (${error.message}); trying again`);
      if (!stopKilling) void sleep(1_000).then(() => start(slot));
    });
  };
  let kills = 0;
  let stopKilling = false;
  let finished = false;
  try {
    for (let slot = 0; slot < settings.processes; slot++) await start(slot);
    await (world instanceof SlackChaosWorld ? firstHealthy(() => [...ports.values()]) : world.ready());
    const killOne = async (): Promise<void> => {
      const slot = Math.floor(Math.random() * settings.processes);
      const victim = lives.findLast((life) => life.slot === slot && life.killedAt === undefined);
      if (victim) victim.killedAt = performance.now();
      running[slot]?.kill("SIGKILL");
      kills += 1;
      log(`killed process ${slot} (${kills} kills)`);
      await sleep(500);
      await start(slot);
    };
    const targets: FaultTargets = {
      ...(proxy ? { proxy } : {}),
      ...(postgres && settings.postgresData ? { postgresData: settings.postgresData } : {}),
      ...(postgres ? {} : { sqliteFile: settings.databaseUrl.slice("file:".length) }),
      ...(world instanceof TelegramChaosWorld
        ? {
            telegram: {
              refuse: (failure, times) => world.telegram.failNext("sendMessage", failure, { times }),
              endRefusals: () => void world.telegram.clearFailures("sendMessage"),
              reset: () => undefined,
            },
            model: { breakNext: (kind, times) => world.breakModel(kind, times) },
          }
        : {}),
      kill: killOne,
    };
    const kinds = wanted.filter((kind) => faultApplies(kind, targets) && kind !== "telegram-reset");
    const faults: FaultWindow[] = [];
    const sampler = (async () => {
      while (!finished) {
        await Promise.all(
          lives
            .filter((life) => life.killedAt === undefined && life.readyAt !== undefined && ports.has(life.pid))
            .map(async (life) => {
              const at = performance.now();
              try {
                const answer = await fetch(`http://127.0.0.1:${ports.get(life.pid)}/readyz`, {
                  signal: AbortSignal.timeout(2_000),
                });
                readyzSamples.push({ at, ok: answer.ok });
              } catch {
                if (life.killedAt === undefined) readyzSamples.push({ at, ok: false });
              }
            }),
        );
        await sleep(250);
      }
    })();
    const killer = (async () => {
      while (!stopKilling) {
        const [low, high] = settings.killEveryMs;
        // A process that is still starting up (seconds on a busy machine) has nothing to lose yet.
        for (let waited = 0; settings.pauseFromReady && waited < 30_000 && !allReady(); waited += 100) await sleep(100);
        await sleep(low + Math.random() * (high - low));
        if (stopKilling) break;
        // In turn, so that a short run makes each kind.
        const kind = kinds[faults.length % kinds.length] ?? "kill";
        if (kind !== "kill") log(`fault ${faults.length + 1}: ${kind}`);
        try {
          const fault = await makeFault(kind, targets);
          faults.push(fault);
          if (kind !== "kill") log(`fault ${faults.length}: ${kind} over${fault.detail ? ` (${fault.detail})` : ""}`);
        } catch (error) {
          log(`fault ${kind} could not be made: ${error instanceof Error ? error.message : String(error)}`);
          faults.push({ kind, at: performance.now(), endAt: performance.now(), detail: "failed" });
        }
      }
    })();
    const livePorts = () =>
      lives
        .filter((life) => life.killedAt === undefined && life.readyAt !== undefined && ports.has(life.pid))
        .map((life) => ports.get(life.pid) ?? 0);
    const sender = autonomous ? new TriggerSender(livePorts, 2_000) : undefined;
    for (let waited = 0; autonomous && waited < 60_000 && !allReady(); waited += 100) await sleep(100);
    // A minute due from here on must run (one before the scheduler started is no occurrence).
    const autonomousFromMs = Date.now() + 1_000;
    sender?.start();
    const sent: { chatId: number; tokens: string[] }[] = [];
    const exchanges: Exchange[] = [];
    await Promise.all(
      Array.from({ length: settings.chats }, async (_, index) => {
        const tokens: string[] = [];
        if (world instanceof SlackChaosWorld) {
          const chatId = 50_000 + index;
          sent.push({ chatId, tokens });
          for (let message = 1; message <= settings.messagesPerChat; message++) {
            tokens.push(await world.send(chatId, message % settings.toolEvery === 0));
          }
          log(`chat ${chatId}: ${settings.messagesPerChat} answered`);
          return;
        }
        sent.push({ chatId: world.chatId(index), tokens });
        const more = () =>
          settings.untilKills === undefined
            ? tokens.length < settings.messagesPerChat
            : faults.length < settings.untilKills;
        while (more()) {
          for (const exchange of await world.sendBurst(index, burst(settings.toolEvery), 90_000)) {
            tokens.push(exchange.token);
            exchanges.push(exchange);
          }
        }
        log(`chat ${world.chatId(index)}: ${tokens.length} sent`);
      }),
    );
    stopKilling = true;
    const autonomousToMs = Date.now() - 1_000;
    await Promise.all([killer, sender?.stop()]);
    void sampler;
    // Let a step that was cut short finish its edits before the chats are read.
    await sleep(3_000);
    const storedIds = await platformIdsStored(settings.databaseUrl);
    const posts = world instanceof TelegramChaosWorld ? world.posts : [];
    const report = readBack(world, sent, kills, { lives, posts, windowMs: settings.windowMs, storedIds });
    if (world instanceof TelegramChaosWorld) {
      report.wrongTurn = await answersOfOtherTurns(settings.databaseUrl);
      report.toolRuns = [...world.toolRuns.values()].reduce((sum, runs) => sum + runs, 0);
      const interrupted = await interruptedTools(settings.databaseUrl);
      const notRun = exchanges.filter((exchange) => exchange.tool && !world.toolRuns.has(exchange.token));
      // A call cut by a kill before its tool began is closed as `interrupted`, never run again.
      report.toolsInterrupted = notRun.filter((exchange) => interrupted.has(exchange.token)).map((e) => e.token);
      report.toolsLost = notRun.filter((exchange) => !interrupted.has(exchange.token)).map((e) => e.token);
      const waits = waitsAfterRestart(exchanges, lives, world.firstCallAt);
      report.maxWaitAfterRestartMs = Math.round(Math.max(0, ...waits.map((wait) => wait.ms)));
      report.slowAfterRestart = waits.filter((wait) => wait.ms > 10_000).map((wait) => wait.token);
      report.faultRows = faultRows(faults, exchanges, report, readyzSamples);
    }
    report.faults = faults;
    report.unexpectedExits = unexpectedExits;
    if (world instanceof TelegramChaosWorld && sender)
      report.autonomous = await settleAutonomous(
        world,
        settings,
        sender,
        firstMinuteUp(lives, performance.timeOrigin, autonomousFromMs),
        autonomousToMs,
      );
    const deliveries = world instanceof SlackChaosWorld ? world.deliveries : [];
    const slackCalls = world instanceof SlackChaosWorld ? world.calls : [];
    if (settings.logDirectory)
      await writeFile(
        path.join(settings.logDirectory, "harness.json"),
        JSON.stringify(
          {
            timeOrigin: performance.timeOrigin,
            lives,
            ports: [...ports],
            posts,
            exchanges,
            firstCallAt: world instanceof TelegramChaosWorld ? [...world.firstCallAt] : [],
            deliveries,
            slackCalls,
            report,
          },
          null,
          1,
        ),
      );
    return report;
  } catch (error) {
    if (settings.logDirectory && world instanceof SlackChaosWorld)
      await writeFile(
        path.join(settings.logDirectory, "harness.json"),
        JSON.stringify(
          {
            timeOrigin: performance.timeOrigin,
            lives,
            ports: [...ports],
            deliveries: world.deliveries,
            slackCalls: world.calls,
          },
          null,
          1,
        ),
      );
    log(
      `failed: ${error instanceof Error ? error.message : String(error)}\n${await unfinishedWork(settings.databaseUrl)}`,
    );
    throw error;
  } finally {
    stopKilling = true;
    finished = true;
    for (const child of running) child?.kill("SIGKILL");
    await world.close();
    await proxy?.close();
    await rm(directory, { recursive: true, force: true });
  }
}

function readBack(
  world: TelegramChaosWorld | SlackChaosWorld,
  sent: { chatId: number; tokens: string[] }[],
  kills: number,
  record: { lives: Life[]; posts: Post[]; windowMs: number; storedIds: ReadonlySet<string> },
): ChaosReport {
  const report: ChaosReport = {
    sent: 0,
    kills,
    lost: [],
    doubled: [],
    doubledInWindow: [],
    doubledUnexplained: [],
    toolsDoubled: [],
    halfWritten: [],
    outOfOrder: [],
    wrongTurn: [],
    toolsLost: [],
    toolsInterrupted: [],
    toolRuns: 0,
    maxWaitAfterRestartMs: 0,
    slowAfterRestart: [],
    faults: [],
    unexpectedExits: 0,
    faultRows: [],
  };
  for (const { chatId, tokens } of sent) {
    report.sent += tokens.length;
    const answers: string[] = [];
    const copies = new Map<string, string[]>();
    for (const { token, text, messageId } of world.answersIn(chatId)) {
      if (!/^((alice|bob): )?re m\d+x\d+ (ok|done)$/.test(text.trim())) report.halfWritten.push(text);
      answers.push(token);
      copies.set(token, [...(copies.get(token) ?? []), messageId]);
    }
    for (const token of tokens) {
      const count = answers.filter((answer) => answer === token).length;
      if (count === 0) report.lost.push(token);
      if (count > 1) {
        report.doubled.push(token);
        // Slack posts are exactly-once: no window to allow for.
        const verdict =
          world instanceof TelegramChaosWorld
            ? judgeDoubles(token, chatId, (copies.get(token) ?? []).map(Number), record)
            : { token, chatId, inWindow: false, copies: [] };
        (verdict.inWindow ? report.doubledInWindow : report.doubledUnexplained).push(verdict);
      }
    }
    const firstSeen = [...new Set(answers)];
    if (firstSeen.join(",") !== tokens.filter((token) => firstSeen.includes(token)).join(","))
      report.outOfOrder.push(chatId);
  }
  for (const [token, runs] of world.toolRuns) if (runs > 1) report.toolsDoubled.push(token);
  return report;
}

/**
 * Waits (up to 60 s) until every stored schedule and trigger run shows its line and answer, then
 * judges the two chats (a minute due just before the load ended may still be running).
 */
async function settleAutonomous(
  world: TelegramChaosWorld,
  settings: ChaosSettings,
  sender: TriggerSender,
  fromMs: number,
  toMs: number,
): Promise<AutonomousReport> {
  const judge = async () =>
    judgeAutonomous({
      schedulePosts: world.botTextsIn(world.chatId(settings.chats)),
      triggerPosts: world.botTextsIn(world.chatId(settings.chats + 1)),
      runs: await rowsOf(settings.databaseUrl, `SELECT "id", "source", "occurrence" FROM "AutonomousRun"`),
      deliveries: sender.deliveries,
      fromMs,
      toMs,
    });
  let report = await judge();
  for (let waited = 0; waited < 60_000; waited += 1_000) {
    const shown = Math.min(report.scheduleLines, report.scheduleAnswers) >= report.scheduleRuns;
    if (shown && report.triggerLost.length === 0) break;
    await sleep(1_000);
    report = await judge();
  }
  return report;
}

/** Resolves when a process answers `/healthz` (its port is up; Slack deliveries retry until it is ready). */
async function firstHealthy(ports: () => number[]): Promise<void> {
  for (;;) {
    for (const port of ports()) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
      } catch {
        // not listening yet
      }
    }
    await sleep(200);
  }
}

/** Rows of a statement on the run's database (PostgreSQL, or SQLite's file). */
async function rowsOf<Row>(databaseUrl: string, statement: string): Promise<Row[]> {
  if (databaseUrl.startsWith("file:")) {
    const database = new DatabaseSync(databaseUrl.slice("file:".length), { readOnly: true });
    try {
      return database.prepare(statement).all() as Row[];
    } finally {
      database.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(statement)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** Every platform message id the service stored, as `<chat id>/<message id>`. */
async function platformIdsStored(databaseUrl: string): Promise<Set<string>> {
  const rows = await rowsOf<{ chatKey: string; platformMessageId: string }>(
    databaseUrl,
    `SELECT "chatKey", "platformMessageId" FROM "OutboundMessage"`,
  );
  // A chat key is platform:workspace:channel:thread.
  return new Set(rows.map((row) => `${row.chatKey.split(":")[2]}/${row.platformMessageId}`));
}

/** Stored answers whose turn answers another message than the one they name. */
async function answersOfOtherTurns(databaseUrl: string): Promise<string[]> {
  const rows = await rowsOf<{ answer: string; question: string }>(
    databaseUrl,
    `SELECT a."text" AS answer, q."text" AS question FROM "Message" AS a
      JOIN "Turn" AS t ON t."id" = a."turnId" JOIN "Message" AS q ON q."id" = t."triggerMessageId"
      WHERE a."authorKind" = 'agent'`,
  );
  const wrong: string[] = [];
  for (const row of rows) {
    const answered = /\bre (m\d+x\d+)\b/.exec(row.answer)?.[1];
    const asked = /\b(m\d+x\d+)\b/.exec(row.question)?.[1];
    if (answered !== undefined && answered !== asked) wrong.push(`${answered} by the turn of ${asked ?? row.question}`);
  }
  return wrong;
}

/** The tokens of the tool calls whose stored result is `interrupted`. */
async function interruptedTools(databaseUrl: string): Promise<Set<string>> {
  const rows = await rowsOf<{ arguments: string }>(
    databaseUrl,
    `SELECT c."arguments" AS arguments FROM "ToolCall" AS c JOIN "ToolResult" AS r ON r."toolCallId" = c."id"
      WHERE r."kind" = 'interrupted'`,
  );
  return new Set(rows.flatMap((row) => /\b(m\d+x\d+)\b/.exec(row.arguments)?.[1] ?? []));
}

/**
 * For each message that was waiting when a process was killed, how long it waited for its
 * answer after that process's successor was up (its first Bot API call or `/readyz`, whichever
 * came first), or after it was sent if later. A message answered before the successor was up
 * (by another process) waited for no restart.
 */
function waitsAfterRestart(
  exchanges: Exchange[],
  lives: Life[],
  firstCallAt: ReadonlyMap<number, number>,
): { token: string; ms: number }[] {
  const upAt = (life: Life) =>
    Math.min(life.readyAt ?? Number.POSITIVE_INFINITY, firstCallAt.get(life.pid) ?? Number.POSITIVE_INFINITY);
  const waits: { token: string; ms: number }[] = [];
  for (const exchange of exchanges) {
    const answeredAt = exchange.answeredAt;
    if (answeredAt === undefined) continue; // lost: counted as such
    const cut = lives.filter(
      (life) => life.killedAt !== undefined && life.killedAt > exchange.sentAt && life.killedAt < answeredAt,
    );
    const last = cut.at(-1);
    if (last?.killedAt === undefined) continue;
    const killedAt = last.killedAt;
    const successor = lives.find((life) => life.slot === last.slot && life.startedAt > killedAt);
    if (successor === undefined || upAt(successor) > answeredAt) continue;
    waits.push({ token: exchange.token, ms: answeredAt - Math.max(upAt(successor), exchange.sentAt) });
  }
  return waits;
}

/** 1 to 3 messages back to back, mostly to one agent; one burst in `toolEvery` ends with a tool request. */
function burst(toolEvery: number): [string, boolean][] {
  const size = 1 + Math.floor(Math.random() * 3);
  let agent = chaosAgents[Math.floor(Math.random() * chaosAgents.length)] ?? "alice";
  const messages: [string, boolean][] = [];
  for (let index = 0; index < size; index++) {
    if (index > 0 && Math.random() < 1 / 3) agent = agent === "alice" ? "bob" : "alice";
    // The tool request comes last: a later message to its agent would supersede its approval.
    messages.push([agent, index === size - 1 && Math.random() < 1 / toolEvery]);
  }
  return messages;
}

/** A child's output, kept in `directory` when one is given. */
function keepOutput(child: ChildProcess, directory: string | undefined, name: string): void {
  if (directory === undefined) return;
  const fd = openSync(path.join(directory, name), "a");
  child.stdout?.on("data", (chunk: Buffer) => writeSync(fd, chunk));
  child.stderr?.on("data", (chunk: Buffer) => writeSync(fd, chunk));
  child.once("close", () => closeSync(fd));
}

/** What the database still holds unfinished (for a failure's message). */
async function unfinishedWork(databaseUrl: string): Promise<string> {
  try {
    const jobs = await rowsOf(
      databaseUrl,
      `SELECT "key", "queue", "state", "attempts", "lockedBy", "lastError" FROM "Job" WHERE "state" <> 'done' ORDER BY "seq"`,
    );
    const turns = await rowsOf(databaseUrl, `SELECT "id", "state", "step" FROM "Turn" WHERE "state" <> 'ended'`);
    return `jobs not done: ${JSON.stringify(jobs)}\nturns not ended: ${JSON.stringify(turns)}`;
  } catch (error) {
    return `(could not read the database: ${String(error)})`;
  }
}

/** The report's rows by fault kind: what each kind touched, and how it came out. */
function faultRows(
  faults: readonly FaultWindow[],
  exchanges: readonly Exchange[],
  report: ChaosReport,
  readyz: readonly { at: number; ok: boolean }[],
): FaultRow[] {
  const touched = touchedByKind(faults, exchanges);
  const recovery = recoveryByKind(faults, exchanges);
  const chatOf = new Map(exchanges.map((exchange) => [exchange.token, exchange.chatId]));
  const lost = new Set(report.lost);
  const doubled = new Set(report.doubledUnexplained.map((verdict) => verdict.token));
  const outOfOrder = new Set(report.outOfOrder);
  const kinds = [...new Set(faults.map((fault) => fault.kind))];
  return kinds.map((kind) => {
    const tokens = touched.get(kind) ?? new Set<string>();
    const windows = faults.filter((fault) => fault.kind === kind);
    const notReady = readyz.filter(
      (sample) => !sample.ok && windows.some((fault) => sample.at >= fault.at && sample.at <= fault.endAt + 5_000),
    ).length;
    return {
      kind,
      made: windows.length,
      touched: tokens.size,
      lost: [...tokens].filter((token) => lost.has(token)).length,
      doubled: [...tokens].filter((token) => doubled.has(token)).length,
      outOfOrderChats: new Set(
        [...tokens].map((token) => chatOf.get(token)).filter((chat) => outOfOrder.has(chat ?? -1)),
      ).size,
      longestWaitAfterMs: recovery.get(kind) ?? 0,
      readyz503: notReady,
    };
  });
}
