import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, realpathSync, writeSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { BenchWorld } from "../../bench/bench-world.js";
import { freePort } from "../../bench/service-process.js";
import { cliEnvironment, repositoryRoot } from "../cli/run-roundtable.js";
import { type DoubleVerdict, judgeDoubles, type Life, type Post } from "./judge-doubles.js";
import { processOfPort } from "./process-of-port.js";

export interface ChaosSettings {
  /** PostgreSQL database URL (a fresh, empty database). */
  databaseUrl: string;
  processes: number;
  chats: number;
  messagesPerChat: number;
  /** Every how many messages in a chat one needs an approved tool call. */
  toolEvery: number;
  /** Pause between two SIGKILLs, at random between these bounds. */
  killEveryMs: [number, number];
  /**
   * A double is the platform's window (Telegram has no idempotency key) only when the process
   * that sent the first copy was SIGKILLed at most this long after the fake answered it.
   */
  windowMs: number;
  /** When set: each process's log (`p<slot>-<pid>.log`) and the harness's record go here. */
  logDirectory?: string;
  /** The processes' LOG_LEVEL (default warn). */
  logLevel?: string;
  log?: (line: string) => void;
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
}

const nodeBinary = realpathSync(process.execPath);
const loader = pathToFileURL(path.join(repositoryRoot, "node_modules/tsx/dist/loader.mjs")).href;
const answerPattern = /\bre (m\d+x\d+)\b/;

/**
 * The real service on PostgreSQL in several processes, long-polling one Telegram fake, while a
 * killer SIGKILLs a random process now and then (and starts it again). Each chat sends its
 * messages one after another (the next when the previous is answered); every `toolEvery`-th asks
 * for a tool that needs approval, approved at once. At the end, the chats are read back.
 */
export async function runChaos(settings: ChaosSettings): Promise<ChaosReport> {
  const log = settings.log ?? (() => undefined);
  const directory = await mkdtemp(path.join(tmpdir(), "roundtable-chaos-"));
  const world = await BenchWorld.start();
  world.replyTimeoutMs = 90_000;
  const configFile = path.join(directory, "roundtable.yaml");
  await writeFile(configFile, world.configYaml());
  const running: (ChildProcess | undefined)[] = [];
  const lives: Life[] = [];
  const posts: Post[] = [];
  // Which process each connection to the Telegram fake comes from (see process-of-port.ts).
  const ownerOfPort = new Map<number, number>();
  const telegramPort = Number(new URL(world.telegram.apiRoot).port);
  world.telegram.onConnection = (remotePort) => {
    const alive = lives.filter((life) => life.killedAt === undefined).map((life) => life.pid);
    const pid = processOfPort(remotePort, telegramPort, alive);
    if (pid === undefined) ownerOfPort.delete(remotePort);
    else ownerOfPort.set(remotePort, pid);
  };
  const benchOnCall = world.telegram.onCall;
  world.telegram.onCall = (call) => {
    if (call.ok && call.method === "sendMessage") {
      const result = call.result as { message_id?: number } | undefined;
      posts.push({
        at: performance.now(),
        chatId: Number(call.params.chat_id),
        messageId: result?.message_id ?? 0,
        text: String(call.params.text ?? ""),
        pid: call.remotePort === undefined ? undefined : ownerOfPort.get(call.remotePort),
      });
    }
    benchOnCall?.(call);
  };
  const start = async (slot: number): Promise<void> => {
    const child = spawn(nodeBinary, ["--import", loader, path.join(repositoryRoot, "src/cli/main.ts"), "start"], {
      cwd: directory,
      env: cliEnvironment({
        PORT: String(await freePort()),
        HOST: "127.0.0.1",
        LOG_LEVEL: settings.logLevel ?? "warn",
        DATABASE_URL: settings.databaseUrl,
        ROUNDTABLE_CONFIG: configFile,
      }),
      stdio: settings.logDirectory === undefined ? "ignore" : ["ignore", "pipe", "pipe"],
    });
    running[slot] = child;
    if (child.pid !== undefined) {
      const life: Life = { slot, pid: child.pid, startedAt: performance.now() };
      lives.push(life);
      keepOutput(child, settings.logDirectory, `p${slot}-${child.pid}.log`);
    }
    // A spawn that fails (the machine is busy) is tried again: a slot must not stay empty.
    child.once("error", (error) => {
      log(`process ${slot} did not start (${error.message}); trying again`);
      if (!stopKilling) void sleep(1_000).then(() => start(slot));
    });
  };
  let kills = 0;
  let stopKilling = false;
  try {
    for (let slot = 0; slot < settings.processes; slot++) await start(slot);
    await world.firstPollAt();
    const killer = (async () => {
      while (!stopKilling) {
        const [low, high] = settings.killEveryMs;
        await sleep(low + Math.random() * (high - low));
        if (stopKilling) break;
        const slot = Math.floor(Math.random() * settings.processes);
        const victim = lives.findLast((life) => life.slot === slot && life.killedAt === undefined);
        if (victim) victim.killedAt = performance.now();
        running[slot]?.kill("SIGKILL");
        kills += 1;
        log(`killed process ${slot} (${kills} kills)`);
        await sleep(500);
        await start(slot);
      }
    })();
    const sent: { chatId: number; tokens: string[] }[] = [];
    await Promise.all(
      Array.from({ length: settings.chats }, async (_, index) => {
        const chatId = 50_000 + index;
        const tokens: string[] = [];
        sent.push({ chatId, tokens });
        for (let message = 1; message <= settings.messagesPerChat; message++) {
          const exchange = await world.send(chatId, message % settings.toolEvery === 0);
          tokens.push(exchange.token);
        }
        log(`chat ${chatId}: ${settings.messagesPerChat} answered`);
      }),
    );
    stopKilling = true;
    await killer;
    // Let a step that was cut short finish its edits before the chats are read.
    await sleep(3_000);
    const storedIds = await platformIdsStored(settings.databaseUrl);
    const report = readBack(world, sent, kills, { lives, posts, windowMs: settings.windowMs, storedIds });
    if (settings.logDirectory)
      await writeFile(
        path.join(settings.logDirectory, "harness.json"),
        JSON.stringify({ timeOrigin: performance.timeOrigin, lives, posts, report }, null, 1),
      );
    return report;
  } catch (error) {
    log(
      `failed: ${error instanceof Error ? error.message : String(error)}\n${await unfinishedWork(settings.databaseUrl)}`,
    );
    throw error;
  } finally {
    stopKilling = true;
    for (const child of running) child?.kill("SIGKILL");
    await world.close();
    await rm(directory, { recursive: true, force: true });
  }
}

function readBack(
  world: BenchWorld,
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
  };
  for (const { chatId, tokens } of sent) {
    report.sent += tokens.length;
    const answers: string[] = [];
    const copies = new Map<string, number[]>();
    for (const message of world.telegram.messagesIn(chatId)) {
      if (message.sentByToken === undefined || message.reply_markup !== undefined) continue; // people, cards
      const token = answerPattern.exec(message.text)?.[1];
      if (token === undefined) continue; // a notice of the world
      if (!/^(alice: )?re m\d+x\d+ (ok|done)$/.test(message.text.trim())) report.halfWritten.push(message.text);
      answers.push(token);
      copies.set(token, [...(copies.get(token) ?? []), message.message_id]);
    }
    for (const token of tokens) {
      const count = answers.filter((answer) => answer === token).length;
      if (count === 0) report.lost.push(token);
      if (count > 1) {
        report.doubled.push(token);
        const verdict = judgeDoubles(token, chatId, copies.get(token) ?? [], record);
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

/** Every platform message id the service stored, as `<chat id>/<message id>`. */
async function platformIdsStored(databaseUrl: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const rows = await client.query<{ chatKey: string; platformMessageId: string }>(
      `SELECT "chatKey", "platformMessageId" FROM "OutboundMessage"`,
    );
    // A chat key is platform:workspace:channel:thread.
    return new Set(rows.rows.map((row) => `${row.chatKey.split(":")[2]}/${row.platformMessageId}`));
  } finally {
    await client.end();
  }
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
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const jobs = await client.query(
      `SELECT "key", "queue", "state", "attempts", "lockedBy", "lastError" FROM "Job" WHERE "state" <> 'done' ORDER BY "seq"`,
    );
    const turns = await client.query(`SELECT "id", "state", "step" FROM "Turn" WHERE "state" <> 'ended'`);
    return `jobs not done: ${JSON.stringify(jobs.rows)}\nturns not ended: ${JSON.stringify(turns.rows)}`;
  } catch (error) {
    return `(could not read the database: ${String(error)})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}
