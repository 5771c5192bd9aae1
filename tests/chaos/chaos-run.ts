import { type ChildProcess, spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { BenchWorld } from "../../bench/bench-world.js";
import { freePort } from "../../bench/service-process.js";
import { cliEnvironment, repositoryRoot } from "../cli/run-roundtable.js";

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
  log?: (line: string) => void;
}

export interface ChaosReport {
  sent: number;
  kills: number;
  /** Messages with no answer in the chat. */
  lost: string[];
  /** Messages answered more than once. */
  doubled: string[];
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
  const start = async (slot: number): Promise<void> => {
    const child = spawn(nodeBinary, ["--import", loader, path.join(repositoryRoot, "src/cli/main.ts"), "start"], {
      cwd: directory,
      env: cliEnvironment({
        PORT: String(await freePort()),
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        DATABASE_URL: settings.databaseUrl,
        ROUNDTABLE_CONFIG: configFile,
      }),
      stdio: ["ignore", "ignore", "ignore"],
    });
    running[slot] = child;
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
    return readBack(world, sent, kills);
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

function readBack(world: BenchWorld, sent: { chatId: number; tokens: string[] }[], kills: number): ChaosReport {
  const report: ChaosReport = {
    sent: 0,
    kills,
    lost: [],
    doubled: [],
    toolsDoubled: [],
    halfWritten: [],
    outOfOrder: [],
  };
  for (const { chatId, tokens } of sent) {
    report.sent += tokens.length;
    const answers: string[] = [];
    for (const message of world.telegram.messagesIn(chatId)) {
      if (message.sentByToken === undefined || message.reply_markup !== undefined) continue; // people, cards
      const token = answerPattern.exec(message.text)?.[1];
      if (token === undefined) continue; // a notice of the world
      if (!/^(alice: )?re m\d+x\d+ (ok|done)$/.test(message.text.trim())) report.halfWritten.push(message.text);
      answers.push(token);
    }
    for (const token of tokens) {
      const count = answers.filter((answer) => answer === token).length;
      if (count === 0) report.lost.push(token);
      if (count > 1) report.doubled.push(token);
    }
    const firstSeen = [...new Set(answers)];
    if (firstSeen.join(",") !== tokens.filter((token) => firstSeen.includes(token)).join(","))
      report.outOfOrder.push(chatId);
  }
  for (const [token, runs] of world.toolRuns) if (runs > 1) report.toolsDoubled.push(token);
  return report;
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
