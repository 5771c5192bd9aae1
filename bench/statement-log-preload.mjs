// Loaded into a service process with `node --import` by `npm run bench -- --statement-log FILE`
// (bench/statement-log.ts): counts every statement any `pg` client of the process sends (Prisma's,
// the hot path's, graphile-worker's, the outbound writer's), by its text with whitespace folded.
// Each SIGUSR2 writes the counts so far to FILE.<n>.json (n = 1, 2, …); the bench sends one before
// and one after its load, and `npx tsx bench/statement-log.ts FILE MESSAGES` prints the difference.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const file = process.env.ROUNDTABLE_BENCH_STATEMENT_LOG;
if (file) {
  const pg = createRequire(path.join(process.cwd(), "package.json"))("pg");
  const counts = new Map();
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function query(config, ...rest) {
    const text = typeof config === "string" ? config : config && typeof config.text === "string" ? config.text : "?";
    const key = text.replace(/\s+/g, " ").trim();
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.call(this, config, ...rest);
  };
  let snapshots = 0;
  process.on("SIGUSR2", () => {
    snapshots += 1;
    writeFileSync(`${file}.${snapshots}.json`, JSON.stringify(Object.fromEntries(counts)));
  });
}
