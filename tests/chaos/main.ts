/**
 * `npm run chaos [-- URL] [--platform telegram|slack] [--logs DIR]`: the long chaos run (three
 * processes, 300 messages, a SIGKILL every 0.5 to 1.5 seconds) on a fresh database of the
 * PostgreSQL server at URL (default $ROUNDTABLE_TEST_POSTGRES_URL), over Telegram long polling
 * (default) or Slack HTTP events. Prints the report; exits 1 when anything was lost, a tool ran
 * twice, a message was left half-written, a chat's order broke, or an answer showed twice other
 * than through Telegram's window (its sender killed within 250 ms of Telegram's answer and its
 * id never stored; Slack has no window). With `--logs DIR`, each process's log and the
 * harness's record are kept in DIR.
 */
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { parseArgs } from "node:util";
import pg from "pg";
import { runChaos } from "./chaos-run.js";

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      logs: { type: "string" },
      "log-level": { type: "string" },
      platform: { type: "string" },
      chats: { type: "string" },
    },
  });
  const platform = values.platform ?? "telegram";
  if (platform !== "telegram" && platform !== "slack") {
    process.stderr.write(`chaos: --platform must be telegram or slack, not ${platform}\n`);
    return 2;
  }
  const serverUrl = positionals[0] ?? process.env.ROUNDTABLE_TEST_POSTGRES_URL;
  if (!serverUrl) {
    process.stderr.write("chaos: needs a PostgreSQL server URL (argument or ROUNDTABLE_TEST_POSTGRES_URL)\n");
    return 2;
  }
  if (values.logs !== undefined) await mkdir(values.logs, { recursive: true });
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
      platform,
      processes: 3,
      chats: values.chats === undefined ? 20 : Number(values.chats),
      messagesPerChat: 15,
      toolEvery: 3,
      killEveryMs: [500, 1_500],
      windowMs: 250,
      ...(values.logs === undefined ? {} : { logDirectory: values.logs }),
      ...(values["log-level"] === undefined ? {} : { logLevel: values["log-level"] }),
      log: (line) => process.stderr.write(`chaos: ${line}\n`),
    });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(
      `answers shown twice: ${report.doubled.length} (${report.doubledInWindow.length} in the platform's window, ${report.doubledUnexplained.length} unexplained) after ${report.kills} kills\n`,
    );
    const failures =
      report.lost.length +
      report.doubledUnexplained.length +
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
