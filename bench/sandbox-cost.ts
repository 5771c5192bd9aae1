/**
 * `npm run bench:sandbox`: what the `shell_cmd` sandbox costs a call. Runs `true` N times
 * (default 40, `--calls N`) one after another in each isolation this host gives: the marker
 * alone, a PID namespace alone (`tools.shell.sandbox: none`), `private` and `strict`, each
 * with its call's outbox made, taken and removed as the service does. Prints median and p95
 * milliseconds per call; asserts nothing. Figures: docs/performance.md ("The shell sandbox").
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { serviceState } from "../src/app/service-state.js";
import { shellConfigSchema } from "../src/config/schema.js";
import { silentLogger } from "../src/log/logger.js";
import { discardCallOutbox, prepareCallOutbox, takeCallOutbox } from "../src/tools/outbox-files.js";
import { ShellToolSource } from "../src/tools/shell/shell-tool-source.js";
import { quantile, round } from "./statistics.js";

const { values } = parseArgs({ options: { calls: { type: "string", default: "40" } } });
const calls = Number(values.calls);
const logger = silentLogger();
const root = await mkdtemp(path.join(tmpdir(), "rt-bench-sandbox-"));
const workdir = path.join(root, "data", "worlds", "main");
const state = serviceState({ cwd: root });
await mkdir(workdir, { recursive: true });

const modes = [
  { label: "marker (no namespace)", config: { sandbox: "none" }, isolation: "marker" as const },
  { label: "PID namespace only (sandbox: none)", config: { sandbox: "none" } },
  { label: "private", config: { sandbox: "private" } },
  { label: "strict", config: { sandbox: "strict" } },
  { label: "private, network: false", config: { sandbox: "private", network: false } },
];

const rows: string[] = [];
for (const mode of modes) {
  const source = new ShellToolSource(shellConfigSchema.parse(mode.config), {
    state,
    ...(mode.isolation === undefined ? {} : { isolation: mode.isolation }),
  });
  const given = source.isolation.kind === "pid-namespace" ? (source.isolation.sandbox?.mode ?? "none") : "marker";
  const times: number[] = [];
  for (let index = -3; index < calls; index++) {
    const id = `bench-${index}`;
    const started = performance.now();
    const outbox = await prepareCallOutbox(workdir, id, logger);
    const outcome = await source.call(
      "shell_cmd",
      { command: "true" },
      { workdir, outbox, signal: new AbortController().signal, timeoutMs: 20_000 },
    );
    await takeCallOutbox(workdir, id, { maxBytes: 1 << 20 }, logger);
    await discardCallOutbox(workdir, id, logger);
    if (outcome.kind !== "ok") throw new Error(`${mode.label}: ${outcome.text}`);
    // The first three warm up.
    if (index >= 0) times.push(performance.now() - started);
  }
  rows.push(`| ${mode.label} | ${given} | ${round(quantile(times, 0.5))} | ${round(quantile(times, 0.95))} |`);
}
await rm(root, { recursive: true, force: true });
process.stdout.write(
  [
    `shell_cmd \`true\`, ${calls} calls each, one after another (uid ${process.getuid?.()})`,
    "| mode asked | in effect | median ms | p95 ms |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n"),
);
