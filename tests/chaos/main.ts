/**
 * `npm run chaos [-- URL]`: the long chaos run (three processes, 300 messages, a SIGKILL every
 * 2 to 5 seconds) on a fresh database of the PostgreSQL server at URL (default
 * $ROUNDTABLE_TEST_POSTGRES_URL). Prints the report; exits 1 when anything was lost, doubled,
 * half-written or out of order.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { runChaos } from "./chaos-run.js";

async function main(): Promise<number> {
  const serverUrl = process.argv[2] ?? process.env.ROUNDTABLE_TEST_POSTGRES_URL;
  if (!serverUrl) {
    process.stderr.write("chaos: needs a PostgreSQL server URL (argument or ROUNDTABLE_TEST_POSTGRES_URL)\n");
    return 2;
  }
  const name = `roundtable_chaos_${randomBytes(4).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    const report = await runChaos({
      databaseUrl: url.toString(),
      processes: 3,
      chats: 20,
      messagesPerChat: 15,
      toolEvery: 3,
      killEveryMs: [2_000, 5_000],
      log: (line) => process.stderr.write(`chaos: ${line}\n`),
    });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const failures =
      report.lost.length +
      report.doubled.length +
      report.toolsDoubled.length +
      report.halfWritten.length +
      report.outOfOrder.length;
    return failures === 0 ? 0 : 1;
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
