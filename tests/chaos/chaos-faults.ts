/**
 * The chaos run's faults beside SIGKILL: the database going away (the run's own TCP proxy
 * before PostgreSQL cutting every connection and refusing new ones, `pg_ctl restart -m fast`,
 * SQLite held locked by another process), the Telegram fake refusing (429 with `retry_after`
 * for one chat's posts, 502s, connections reset) and the model fake breaking off (a stream cut
 * after some text, 529 overloaded). Each fault is one timed window; the report judges the
 * messages it touched like the kills' (lost, doubled, order) and how long work took to resume.
 */
import { execFile, spawn } from "node:child_process";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import type { TcpProxy } from "../fakes/tcp-proxy.js";

/** Every fault kind the run can make; `kill` is the SIGKILL of one process. */
export const faultKinds = [
  "kill",
  "pg-cut",
  "pg-restart",
  "sqlite-lock",
  "telegram-429",
  "telegram-5xx",
  "telegram-reset",
  "model-cut",
  "model-529",
] as const;
export type FaultKind = (typeof faultKinds)[number];

/** One fault made: its kind and window (`performance.now()`), and what it touched. */
export interface FaultWindow {
  kind: FaultKind;
  at: number;
  endAt: number;
  detail?: string;
}

/** What the faults act on (absent parts leave their faults out). */
export interface FaultTargets {
  proxy?: TcpProxy;
  /** PostgreSQL's data directory (for `pg_ctl restart`). */
  postgresData?: string;
  /** SQLite's file. */
  sqliteFile?: string;
  telegram?: {
    /** Refuse the next `times` sends to `chatId`, or any chat, with this answer. */
    refuse(failure: { error_code: number; description: string; retry_after?: number }, times: number): void;
    /**
     * End the refusals not yet made: a 429 or 5xx outage is a window of time, as on Telegram.
     * Left armed, they would wait for the next send whenever it comes: at a run's end the one
     * answer still being sent took every refusal of every later fault and never got through.
     */
    endRefusals(): void;
    /** Reset the connections of the next `times` calls (no answer). */
    reset(times: number): void;
  };
  model?: { breakNext(kind: "cut" | "overloaded", times: number): void };
  kill(): Promise<void>;
}

const run = promisify(execFile);

/** Whether `kind` can be made with these targets. */
export function faultApplies(kind: FaultKind, targets: FaultTargets): boolean {
  switch (kind) {
    case "kill":
      return true;
    case "pg-cut":
      return targets.proxy !== undefined;
    case "pg-restart":
      return targets.postgresData !== undefined;
    case "sqlite-lock":
      return targets.sqliteFile !== undefined;
    case "telegram-429":
    case "telegram-5xx":
    case "telegram-reset":
      return targets.telegram !== undefined;
    case "model-cut":
    case "model-529":
      return targets.model !== undefined;
  }
}

/** Make one fault of `kind`; resolves when its window is over. */
export async function makeFault(kind: FaultKind, targets: FaultTargets): Promise<FaultWindow> {
  const at = performance.now();
  const window = (detail?: string): FaultWindow => ({
    kind,
    at,
    endAt: performance.now(),
    ...(detail ? { detail } : {}),
  });
  switch (kind) {
    case "kill":
      await targets.kill();
      return window();
    case "pg-cut": {
      const proxy = targets.proxy;
      if (!proxy) break;
      const ms = 2_000 + Math.floor(Math.random() * 8_000);
      proxy.refuse();
      const cut = proxy.cut();
      await sleep(ms);
      proxy.accept();
      return window(`${cut} connections cut, refused ${ms} ms`);
    }
    case "pg-restart": {
      if (!targets.postgresData) break;
      const data = targets.postgresData;
      const command = `pg_ctl restart -m fast -w -D '${data}' -l '${path.dirname(data)}/server.log' >/dev/null`;
      // pg_ctl refuses root: as the postgres user then (as scripts/postgres-up.sh runs it).
      await (process.getuid?.() === 0
        ? run("su", ["postgres", "-s", "/bin/bash", "-c", command])
        : run("/bin/bash", ["-c", command]));
      return window();
    }
    case "sqlite-lock": {
      if (!targets.sqliteFile) break;
      const ms = 3_000 + Math.floor(Math.random() * 5_000);
      await holdSqliteLocked(targets.sqliteFile, ms);
      return window(`locked ${ms} ms`);
    }
    case "telegram-429": {
      const retryAfter = 2 + Math.floor(Math.random() * 4);
      targets.telegram?.refuse(
        { error_code: 429, description: `Too Many Requests: retry after ${retryAfter}`, retry_after: retryAfter },
        3,
      );
      await sleep(retryAfter * 1_000);
      targets.telegram?.endRefusals();
      return window(`retry_after ${retryAfter} s`);
    }
    case "telegram-5xx":
      targets.telegram?.refuse({ error_code: 502, description: "Bad Gateway" }, 4);
      await sleep(2_000);
      targets.telegram?.endRefusals();
      return window();
    case "telegram-reset":
      targets.telegram?.reset(3);
      await sleep(2_000);
      return window();
    case "model-cut":
      targets.model?.breakNext("cut", 3);
      await sleep(2_000);
      return window();
    case "model-529":
      targets.model?.breakNext("overloaded", 3);
      await sleep(2_000);
      return window();
  }
  return window("not applicable");
}

/** Another process holding `BEGIN EXCLUSIVE` on the SQLite file for `ms` (as `sqlite3` with an open transaction). */
async function holdSqliteLocked(file: string, ms: number): Promise<void> {
  const script = `const { DatabaseSync } = require("node:sqlite");
    const db = new DatabaseSync(process.argv[1], { timeout: 10000 });
    db.exec("BEGIN EXCLUSIVE");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ["-e", script, file, String(ms)], { stdio: "ignore" });
  await new Promise<void>((resolve) => child.once("exit", () => resolve()));
}

/** The longest a message waited for its answer after a fault of each kind ended (it was waiting during it). */
export function recoveryByKind(
  faults: readonly FaultWindow[],
  exchanges: readonly { sentAt: number; answeredAt?: number }[],
): Map<FaultKind, number> {
  const longest = new Map<FaultKind, number>();
  for (const fault of faults) {
    for (const exchange of exchanges) {
      const answeredAt = exchange.answeredAt;
      if (answeredAt === undefined || exchange.sentAt > fault.endAt || answeredAt < fault.at) continue;
      const wait = Math.max(0, answeredAt - Math.max(fault.endAt, exchange.sentAt));
      longest.set(fault.kind, Math.max(longest.get(fault.kind) ?? 0, wait));
    }
  }
  return longest;
}

/** The messages (tokens) sent before a fault of each kind ended and not answered before it began. */
export function touchedByKind(
  faults: readonly FaultWindow[],
  exchanges: readonly { token: string; sentAt: number; answeredAt?: number }[],
): Map<FaultKind, Set<string>> {
  const touched = new Map<FaultKind, Set<string>>();
  for (const fault of faults) {
    const tokens = touched.get(fault.kind) ?? new Set<string>();
    touched.set(fault.kind, tokens);
    for (const exchange of exchanges)
      if (exchange.sentAt <= fault.endAt && (exchange.answeredAt ?? Number.POSITIVE_INFINITY) >= fault.at)
        tokens.add(exchange.token);
  }
  return touched;
}

/** The report's table: one row a fault kind. */
export function faultTable(rows: readonly FaultRow[]): string {
  const header = [
    "fault",
    "made",
    "touched",
    "lost",
    "doubled",
    "out of order",
    "longest wait after (ms)",
    "readyz 503 seen",
  ];
  const lines = [
    header,
    ...rows.map((row) => [
      row.kind,
      String(row.made),
      String(row.touched),
      String(row.lost),
      String(row.doubled),
      String(row.outOfOrderChats),
      String(Math.round(row.longestWaitAfterMs)),
      String(row.readyz503),
    ]),
  ];
  const widths = header.map((_, column) => Math.max(...lines.map((line) => (line[column] ?? "").length)));
  const format = (line: string[]) => `| ${line.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [
    format(header),
    `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`,
    ...lines.slice(1).map(format),
  ].join("\n");
}

/** One row of {@link faultTable}. */
export interface FaultRow {
  kind: FaultKind;
  made: number;
  touched: number;
  lost: number;
  doubled: number;
  outOfOrderChats: number;
  longestWaitAfterMs: number;
  /** `/readyz` samples answered 503 (or not at all) during or within 5 s after faults of this kind. */
  readyz503: number;
}
