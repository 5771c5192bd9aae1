import { realpathSync } from "node:fs";
import { realpath } from "node:fs/promises";
import path from "node:path";
import type { ShellConfig } from "../../config/schema.js";
import type { ToolDefinition } from "../../providers/model-provider.js";
import type { Logger } from "../../log/logger.js";
import { formatSeconds } from "../format-seconds.js";
import { shellToolName } from "../tool-list-entry.js";
import type { ArgumentPrecheck, ToolOutcome, ToolRunContext, ToolSource } from "../tool-source.js";
import { checkArguments } from "../validate-arguments.js";
import { confineDirectory } from "./confine-directory.js";
import { formatShellResult, formatStreams } from "./format-shell-result.js";
import { outboxDirectory, outboxVariable } from "../outbox-files.js";
import { type ServiceState, sandboxScript } from "./mount-sandbox.js";
import { type ProcessIsolation, processIsolation } from "./process-namespace.js";
import { runProcess } from "./run-process.js";
import { allowedEnvironment } from "./shell-environment.js";
import { type ShellInput, shellToolDefinition } from "./shell-tool-definition.js";

export interface ShellToolOptions {
  /** Time between SIGTERM and SIGKILL when a run is stopped (default 2 s). */
  killGraceMs?: number;
  /** The environment allowlisted variables are taken from (default `process.env`). */
  environment?: NodeJS.ProcessEnv;
  /**
   * `auto` (default): each call in a PID namespace of its own where the host allows one (probed
   * once), else the marker; `marker`: the marker alone (tests of that mode).
   */
  isolation?: "auto" | "marker";
  /** Told once which mode is in effect. */
  logger?: Logger;
  /** What a sandboxed call must not see (`src/app/service-state.ts`); none given, only what the mode itself hides. */
  state?: ServiceState;
}

/**
 * The built-in `shell_cmd` tool: one program per call, no shell, confined to the world's
 * working directory, with a timeout (the call's `timeoutSeconds`, capped by
 * `tools.shell.timeout`), capped output and only allowlisted environment variables.
 * A non-zero exit is an `ok` outcome (the model reads the exit code); a program that cannot
 * start is `failed`; a bad `cwd` is an `error`.
 */
export class ShellToolSource implements ToolSource, ArgumentPrecheck {
  readonly definition: ToolDefinition;
  private readonly killGraceMs: number;
  /** The mode calls run in (`process-namespace.ts`). */
  readonly isolation: ProcessIsolation;

  constructor(
    private readonly config: ShellConfig,
    private readonly options: ShellToolOptions = {},
  ) {
    // Probed only when the tool is offered (the probe starts a process).
    this.isolation =
      options.isolation === "marker" || !config.enabled
        ? { kind: "marker", reason: config.enabled ? "chosen by the caller" : "shell_cmd is turned off" }
        : processIsolation({ sandbox: config.sandbox, network: config.network });
    this.definition = shellToolDefinition(Math.max(1, Math.floor(config.timeout / 1000)), this.isolation);
    this.killGraceMs = options.killGraceMs ?? 2000;
    if (config.enabled) logIsolation(options.logger, this.isolation);
  }

  list(): ToolDefinition[] {
    return this.config.enabled ? [this.definition] : [];
  }

  async call(name: string, args: Record<string, unknown>, context: ToolRunContext): Promise<ToolOutcome> {
    if (name !== shellToolName || !this.config.enabled) {
      return { kind: "failed", text: `${name} is not offered (tools.shell.enabled: ${this.config.enabled})` };
    }
    const checked = checkArguments(this.definition.inputSchema, args);
    if (!checked.ok) return { kind: "error", text: `invalid arguments: ${checked.problem}` };
    const input = args as unknown as ShellInput;
    const directory = await confineDirectory(context.workdir, input.cwd);
    if (!directory.ok) return { kind: "error", text: directory.problem };
    if (context.signal.aborted)
      return { kind: "failed", text: `${input.command} was not started: the service is stopping` };
    const timeoutMs = effectiveTimeoutMs(input.timeoutSeconds, this.config.timeout);
    const sandbox = await this.sandboxFor(context);
    const start = await runProcess({
      command: input.command,
      args: input.args ?? [],
      cwd: directory.path,
      env: { ...allowedEnvironment(this.config.envAllowlist, this.options.environment), ...sandbox.environment },
      timeoutMs,
      maxOutputBytes: this.config.maxOutputBytes,
      signal: context.signal,
      killGraceMs: this.killGraceMs,
      isolation: this.isolation,
      ...(sandbox.setup === undefined ? {} : { sandboxSetup: sandbox.setup }),
    });
    if (!start.started) return { kind: "failed", text: describeStartError(input.command, start.error) };
    const run = start.run;
    switch (run.ending) {
      case "exited":
        return { kind: "ok", text: formatShellResult(run) };
      case "timeout":
        return {
          kind: "timeout",
          text: `${input.command} did not finish within ${formatSeconds(timeoutMs)} and was stopped\n${formatStreams(run)}`,
        };
      case "aborted":
        return { kind: "failed", text: `${input.command} was stopped: the service is stopping\n${formatStreams(run)}` };
    }
  }

  /**
   * The call's sandbox script and the variable naming its outbox: in a sandbox the outbox is
   * bound over `<workdir>/outbox` (so the call sees its own only); elsewhere it is named where it lies.
   */
  private async sandboxFor(context: ToolRunContext): Promise<{ setup?: string; environment: Record<string, string> }> {
    const sandbox = this.isolation.kind === "pid-namespace" ? this.isolation.sandbox : undefined;
    if (sandbox === undefined)
      return { environment: context.outbox === undefined ? {} : { [outboxVariable]: context.outbox } };
    const workdir = await realpath(context.workdir);
    const setup = sandboxScript({
      mode: sandbox.mode,
      mount: sandbox.mount,
      workdir,
      outbox: context.outbox,
      state: this.options.state ?? { files: [], directories: [] },
      writableProc: sandbox.dropTo !== undefined,
      keep: [path.dirname(realpathSync(process.execPath))],
    });
    const outbox = path.join(workdir, outboxDirectory);
    return { setup, environment: context.outbox === undefined ? {} : { [outboxVariable]: outbox } };
  }

  /** A `cwd` that leaves the workdir is refused before approval (symlinks are checked at run time). */
  precheck(_name: string, args: Record<string, unknown>, workdir: string): string | undefined {
    const cwd = args.cwd;
    if (typeof cwd !== "string" || cwd === "") return undefined;
    const relative = path.relative(path.resolve(workdir), path.resolve(workdir, cwd));
    if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
      return `cwd ${JSON.stringify(cwd)} is outside the working directory`;
    }
    return undefined;
  }

  async close(): Promise<void> {}
}

function logIsolation(logger: Logger | undefined, isolation: ProcessIsolation): void {
  if (isolation.kind === "pid-namespace") {
    const sandbox = isolation.sandbox?.mode ?? "none";
    const fields = { isolation: isolation.kind, sandbox, network: isolation.network };
    if (isolation.fallback !== undefined) {
      logger?.warn(
        { ...fields, reason: isolation.fallback },
        "shell_cmd runs each call in a PID namespace of its own, without the sandbox asked for: calls see the service's own files",
      );
    } else {
      logger?.info(fields, `shell_cmd runs each call in a PID namespace of its own, sandbox: ${sandbox}`);
    }
  } else {
    logger?.warn(
      { isolation: isolation.kind, reason: isolation.reason },
      "shell_cmd finds a call's processes by an environment marker (no PID namespace): one that clears its " +
        "environment, leaves its session and its parent can outlive the call; no sandbox: calls see the service's own files",
    );
  }
}

/** The call's own timeout, never above the configured one. */
export function effectiveTimeoutMs(timeoutSeconds: number | undefined, configuredMs: number): number {
  if (timeoutSeconds === undefined || !(timeoutSeconds > 0)) return configuredMs;
  return Math.min(Math.round(timeoutSeconds * 1000), configuredMs);
}

function describeStartError(command: string, error: NodeJS.ErrnoException): string {
  const quoted = JSON.stringify(command);
  switch (error.code) {
    case "ENOENT":
      return command.includes("/")
        ? `could not start ${quoted}: no such file (ENOENT)`
        : `could not start ${quoted}: command not found on PATH (ENOENT)`;
    case "EACCES":
      return `could not start ${quoted}: permission denied, not an executable file (EACCES)`;
    default:
      return `could not start ${quoted}: ${error.message}`;
  }
}
