/**
 * `npm run bench -- --db postgres --statement-log FILE`: every statement the service's `pg`
 * clients send during the load, counted by text (bench/statement-log-preload.mjs, loaded into the
 * service with `node --import`). Then `npx tsx bench/statement-log.ts FILE MESSAGES` prints each
 * statement's count per message over the load (MESSAGES: the load's messages, 1,000 or 200).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const preload = path.join(path.dirname(fileURLToPath(import.meta.url)), "statement-log-preload.mjs");

/** The service's environment for a statement log into `file` (merged with other NODE_OPTIONS). */
export function statementLogEnv(file: string, nodeOptions = ""): Record<string, string> {
  return {
    ROUNDTABLE_BENCH_STATEMENT_LOG: path.resolve(file),
    NODE_OPTIONS: `${nodeOptions} --import ${preload}`.trim(),
  };
}

/** The counts so far written to the next snapshot file (one before the load, one after). */
export function markStatements(pid: number): void {
  process.kill(pid, "SIGUSR2");
}

function summarize(file: string, messages: number): void {
  const read = (n: number) => JSON.parse(readFileSync(`${file}.${n}.json`, "utf8")) as Record<string, number>;
  const before = read(1);
  const after = read(2);
  const rows = Object.entries(after)
    .map(([text, count]) => ({ text, count: count - (before[text] ?? 0) }))
    .filter((row) => row.count > 0)
    .sort((a, b) => b.count - a.count);
  const total = rows.reduce((sum, row) => sum + row.count, 0);
  process.stdout.write(`${(total / messages).toFixed(2)} statements a message (${total} for ${messages})\n`);
  for (const row of rows)
    process.stdout.write(`${(row.count / messages).toFixed(2).padStart(6)}  ${row.text.slice(0, 220)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [file, messages] = process.argv.slice(2);
  if (!file || !messages) throw new Error("usage: npx tsx bench/statement-log.ts FILE MESSAGES");
  summarize(file, Number(messages));
}
