/**
 * `npx tsx bench/idle-cpu.ts [--messages M] [--seconds S] [--windows K] [--profile DIR] [--env NAME=VALUE]...`: what one
 * service process on PostgreSQL costs with nothing to do. Starts the built service (run
 * `npm run build` first) on a fresh database of `$ROUNDTABLE_TEST_POSTGRES_URL` with the
 * bench's world (Telegram polling, an OpenAI fake, an MCP tool), answers M messages (20 chats,
 * default 20 messages), then measures K windows of S seconds of idleness one after another (the
 * first shows the load's tail: garbage collection, compilation): the process's CPU by thread,
 * its statements (by the `roundtable_database_statements_total` counter) and the database
 * backends' CPU, per second.
 * With `--profile DIR` the service writes a V8 CPU profile there when it stops
 * (`bench/summarize-profile.ts` reads it).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { BenchWorld } from "./bench-world.js";
import { DatabaseCpu } from "./postgres-cpu.js";
import { dropPostgresDatabase, freshPostgresDatabase } from "./postgres-database.js";
import { threadCpuMilliseconds, treeCpuMilliseconds } from "./process-stats.js";
import { startServiceProcess } from "./service-process.js";
import { round } from "./statistics.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "20" },
    windows: { type: "string", default: "1" },
    messages: { type: "string", default: "20" },
    profile: { type: "string" },
    env: { type: "string", multiple: true },
  },
});
const seconds = Number.parseInt(values.seconds, 10);
const windows = Number.parseInt(values.windows, 10);
const messages = Number.parseInt(values.messages, 10);
const serverUrl = process.env.ROUNDTABLE_TEST_POSTGRES_URL;
if (!serverUrl) throw new Error("set ROUNDTABLE_TEST_POSTGRES_URL");
const extraEnv = Object.fromEntries(
  (values.env ?? []).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
);

const directory = await mkdtemp(path.join(tmpdir(), "roundtable-idle-"));
const databaseUrl = await freshPostgresDatabase(serverUrl);
const world = await BenchWorld.start();
const configFile = path.join(directory, "roundtable.yaml");
await writeFile(configFile, world.configYaml());
const service = await startServiceProcess({
  DATABASE_URL: databaseUrl,
  ROUNDTABLE_CONFIG: configFile,
  ROUNDTABLE_DATA_DIR: directory,
  ...(values.profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(values.profile)}` } : {}),
  ...extraEnv,
});
const databaseCpu = await DatabaseCpu.connect(databaseUrl);
try {
  await world.firstPollAt();
  await Promise.all(
    Array.from({ length: 20 }, async (_, chat) => {
      for (let index = chat; index < messages; index += 20) await world.send(1 + chat);
    }),
  );
  for (let window = 0; window < windows; window++) await measureWindow();
} finally {
  await service.stop();
  await databaseCpu.close().catch(() => undefined);
  await world.close();
  await dropPostgresDatabase(serverUrl, databaseUrl).catch(() => undefined);
  await rm(directory, { recursive: true, force: true });
}

async function measureWindow(): Promise<void> {
  const statementsBefore = (await service.metric("roundtable_database_statements_total")) ?? Number.NaN;
  const cpuBefore = treeCpuMilliseconds(service.pid);
  const threadsBefore = threadCpuMilliseconds(service.pid);
  await databaseCpu.start();
  await sleep(seconds * 1000);
  const databaseMs = await databaseCpu.stop();
  const cpu = treeCpuMilliseconds(service.pid) - cpuBefore;
  const threads = Object.fromEntries(
    [...threadCpuMilliseconds(service.pid)]
      .map(([name, ms]) => [name, round((ms - (threadsBefore.get(name) ?? 0)) / seconds)] as const)
      .filter(([, value]) => value > 0),
  );
  const statements = ((await service.metric("roundtable_database_statements_total")) ?? Number.NaN) - statementsBefore;
  process.stdout.write(
    `${JSON.stringify({
      seconds,
      cpuMsPerSecond: round(cpu / seconds),
      statementsPerSecond: round(statements / seconds),
      databaseCpuMsPerSecond: round(databaseMs / seconds),
      threadsMsPerSecond: threads,
      env: extraEnv,
    })}\n`,
  );
}
