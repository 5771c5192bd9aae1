import { spawnSync } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { type SandboxMode, sandboxScript } from "./mount-sandbox.js";

/**
 * How a call's processes are held together, probed once per service process:
 * - `pid-namespace`: each call runs in a PID namespace of its own (util-linux `unshare`), whose
 *   init is a small Node.js program that starts the command and reports how it ended. When the
 *   init exits (the command exited) or is killed (timeout, `/stop`), the kernel kills every
 *   process left in the namespace, however it detached.
 * - `marker`: the host allows no such namespace (e.g. Docker's default seccomp profile, not
 *   Linux, no `unshare`); the call's processes are found by the marker in their environment,
 *   their process group and their parent (`process-tree.ts`) and nothing more.
 */
export type ProcessIsolation =
  | {
      kind: "pid-namespace";
      unshare: string;
      flags: readonly string[];
      nodeFlags: readonly string[];
      /** The mount sandbox each call gets (`mount-sandbox.ts`), when one was asked for and the host allows it. */
      sandbox?: SandboxRuntime;
      /** False: each call in a network namespace of its own (only a loopback interface). */
      network: boolean;
      /** Why the sandbox asked for is not in effect (the host refused it). */
      fallback?: string;
    }
  | { kind: "marker"; reason: string };

/** How a call's sandbox script runs. */
export interface SandboxRuntime {
  mode: Exclude<SandboxMode, "none">;
  shell: string;
  mount: string;
  /**
   * The command runs in a user namespace nested in the one that owns its mounts, mapping the
   * service's uid and gid back (`unshare --map-user`): it has no capability over the mounts
   * that hide the service's state (a service that is not root sets the sandbox up as root of a
   * user namespace of its own; a root one sets it up with its own capabilities).
   */
  dropTo?: { uid: number; gid: number };
}

/** What the config asks of a call's isolation (`tools.shell.sandbox`, `tools.shell.network`). */
export interface IsolationRequest {
  sandbox: SandboxMode;
  network: boolean;
}

/** The variable that carries the command's environment to the namespace's init (which gets no other). */
const commandEnvironmentName = "ROUNDTABLE_COMMAND_ENV";

/**
 * The namespace's init, run as `node -e`: with no arguments it reports its pid (the probe: 1 in
 * a new PID namespace); else it starts `argv` (a session of its own, as the service would
 * start it, with the environment it was handed) on its own stdin, stdout and stderr, and
 * reports on fd 3 (which the command does not inherit: Node.js passes a child only the stdio it
 * is given) that the command started or
 * could not, and then how it ended. It installs no signal handler: as a namespace's init it is
 * then immune to signals from inside the namespace and from the service except SIGKILL, so it
 * outlives the command and its report is whole. Kept in plain CommonJS: it runs outside the
 * bundle and any loader.
 */
export const namespaceInitScript = `"use strict";
const { spawn } = require("node:child_process");
const { writeSync } = require("node:fs");
const report = (message) => {
  try { writeSync(3, JSON.stringify(message) + "\\n"); } catch {}
};
const [command, ...args] = process.argv.slice(1);
if (command === undefined) {
  report({ probe: process.pid });
  process.exit(0);
}
const env = JSON.parse(process.env.${commandEnvironmentName} ?? "{}");
const child = spawn(command, args, { env, stdio: "inherit", detached: true });
child.once("spawn", () => report({ started: true }));
child.once("error", (error) => {
  if (child.pid !== undefined) return;
  report({ error: { code: error.code, errno: error.errno, syscall: error.syscall, path: error.path, message: error.message } });
  process.exit(127);
});
child.once("exit", (exitCode, signal) => {
  report({ exitCode, signal });
  process.exit(exitCode ?? 128);
});
`;

/** One line the init writes on fd 3. */
const initReportSchema = z.union([
  z.object({ probe: z.number() }),
  z.object({ started: z.literal(true) }),
  z.object({
    error: z.object({
      code: z.string().optional(),
      errno: z.number().optional(),
      syscall: z.string().optional(),
      path: z.string().optional(),
      message: z.string(),
    }),
  }),
  z.object({ exitCode: z.number().nullable(), signal: z.string().nullable() }),
]);

/** What the init said, all lines together. */
export interface InitReport {
  probe?: number;
  started: boolean;
  startError?: NodeJS.ErrnoException;
  ending?: { exitCode: number | null; signal: NodeJS.Signals | null };
}

/** The init's fd 3 text, read; lines that do not parse are left out. */
export function parseInitReport(text: string): InitReport {
  const report: InitReport = { started: false };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let parsed: z.infer<typeof initReportSchema>;
    try {
      parsed = initReportSchema.parse(JSON.parse(line));
    } catch {
      continue;
    }
    if ("probe" in parsed) report.probe = parsed.probe;
    else if ("started" in parsed) report.started = true;
    else if ("error" in parsed) report.startError = startError(parsed.error);
    else report.ending = { exitCode: parsed.exitCode, signal: parsed.signal as NodeJS.Signals | null };
  }
  return report;
}

function startError(fields: {
  code?: string | undefined;
  errno?: number | undefined;
  syscall?: string | undefined;
  path?: string | undefined;
  message: string;
}): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(fields.message);
  if (fields.code !== undefined) error.code = fields.code;
  if (fields.errno !== undefined) error.errno = fields.errno;
  if (fields.syscall !== undefined) error.syscall = fields.syscall;
  if (fields.path !== undefined) error.path = fields.path;
  return error;
}

/** How to start `command` inside a fresh namespace: the program, its arguments and its environment. */
export function namespaceLaunch(
  isolation: Extract<ProcessIsolation, { kind: "pid-namespace" }>,
  command: string,
  args: readonly string[],
  environment: Record<string, string>,
  initEnvironment: Record<string, string>,
  /** The sandbox script (`mount-sandbox.ts`) for this call, when the isolation has a sandbox. */
  setup?: string,
): { command: string; args: string[]; env: Record<string, string> } {
  const sandbox = isolation.sandbox;
  const drop = sandbox?.dropTo;
  return {
    command: isolation.unshare,
    args: [
      ...isolation.flags,
      ...(sandbox === undefined || setup === undefined ? [] : [sandbox.shell, "-c", setup, "roundtable-sandbox"]),
      // The init itself runs as the service's user again (still pid 1: `unshare` without `--fork` execs).
      ...(drop === undefined ? [] : [isolation.unshare, ...dropFlags(drop)]),
      process.execPath,
      ...isolation.nodeFlags,
      "-e",
      namespaceInitScript,
      "--",
      command,
      ...args,
    ],
    env: { ...initEnvironment, [commandEnvironmentName]: JSON.stringify(environment) },
  };
}

function dropFlags(drop: { uid: number; gid: number }): string[] {
  return ["--user", `--map-user=${drop.uid}`, `--map-group=${drop.gid}`, "--"];
}

const probed = new Map<string, ProcessIsolation>();

/**
 * The isolation this host allows for `request`, probed once per request (synchronously, at the
 * first `shell_cmd` source): the real chain (`unshare`, the sandbox script, then the init) must
 * start and the init must be pid 1. A sandbox the host refuses falls back to a PID namespace
 * alone (the reason kept in `fallback`), and that to the marker.
 */
export function processIsolation(request: IsolationRequest = { sandbox: "none", network: true }): ProcessIsolation {
  const key = `${request.sandbox}:${request.network}`;
  let isolation = probed.get(key);
  if (isolation === undefined) {
    isolation = probeProcessIsolation(request);
    probed.set(key, isolation);
  }
  return isolation;
}

/**
 * `unshare` flags: a new PID namespace whose init is a forked child (`--fork`, killed if
 * `unshare` dies: `--kill-child`), with `/proc` mounted for it in a new mount namespace, so
 * `ps` and `/proc/self` agree with the pids the command sees. As root (with `CAP_SYS_ADMIN`)
 * no user namespace: a root command keeps root's access to every file. Otherwise a user
 * namespace maps the service's user to itself, so the command runs as the same uid and gid.
 */
function candidateFlags(network: boolean): string[] {
  const namespaces = ["--pid", "--fork", "--kill-child", "--mount-proc", ...(network ? [] : ["--net"])];
  return isRoot() ? namespaces : ["--user", "--map-current-user", ...namespaces];
}

/** As root (with `CAP_SYS_ADMIN`) a mount namespace needs no user namespace; otherwise the sandbox is set up as root of one. */
function sandboxFlags(network: boolean): string[] {
  const namespaces = ["--mount", "--pid", "--fork", "--kill-child", "--mount-proc", ...(network ? [] : ["--net"])];
  return isRoot() ? namespaces : ["--user", "--map-root-user", ...namespaces];
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function probeProcessIsolation(request: IsolationRequest): ProcessIsolation {
  if (process.platform !== "linux") return { kind: "marker", reason: `no PID namespaces on ${process.platform}` };
  const unshare = findExecutable("unshare");
  if (unshare === undefined) return { kind: "marker", reason: "unshare (util-linux) is not installed" };
  // Node.js starts its inspector on SIGUSR1: the command may send it to its init; turn that off where it can.
  const nodeFlags = process.allowedNodeEnvironmentFlags.has("--disable-sigusr1") ? ["--disable-sigusr1"] : [];
  const base = { kind: "pid-namespace", unshare, nodeFlags, network: request.network } as const;
  let fallback: string | undefined;
  if (request.sandbox !== "none") {
    const shell = findExecutable("sh");
    const mount = findExecutable("mount");
    if (shell === undefined || mount === undefined) fallback = "sh or mount (util-linux) is not installed";
    else {
      const sandbox: SandboxRuntime = { mode: request.sandbox, shell, mount };
      // Always: a root command left in the namespace's own user namespace would hold CAP_SYS_ADMIN
      // over its mounts and could `umount` whatever hides the service's state.
      sandbox.dropTo = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
      const isolation = { ...base, flags: sandboxFlags(request.network), sandbox };
      // The real script on the service's own directory: every mount a call makes, once.
      const setup = sandboxScript({
        mode: sandbox.mode,
        mount,
        workdir: process.cwd(),
        state: { files: [], directories: [] },
        writableProc: sandbox.dropTo !== undefined,
        keep: [path.dirname(realpathSync(process.execPath))],
      });
      const launch = namespaceLaunch(isolation, process.execPath, [], {}, {}, setup);
      // The probe runs the init without a command: what follows the init's own `--` goes.
      const probeArgs = launch.args.slice(0, launch.args.lastIndexOf("--"));
      const tried = probe(unshare, probeArgs);
      if (tried === undefined) return isolation;
      fallback = `the ${sandbox.mode} sandbox could not be made: ${tried}`;
    }
  }
  const flags = candidateFlags(request.network);
  const tried = probe(unshare, [...flags, process.execPath, ...nodeFlags, "-e", namespaceInitScript]);
  if (tried === undefined) return { ...base, flags, ...(fallback === undefined ? {} : { fallback }) };
  return { kind: "marker", reason: `\`unshare ${flags.join(" ")}\` failed: ${tried}` };
}

/** Run the probe chain; undefined when its init came up as pid 1, else why not. */
function probe(unshare: string, args: readonly string[]): string | undefined {
  const result = spawnSync(unshare, args, {
    env: {},
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    timeout: 20_000,
    encoding: "utf8",
  });
  const report = parseInitReport(String(result.output?.[3] ?? ""));
  if (result.status === 0 && report.probe === 1) return undefined;
  const said = String(result.stderr ?? "")
    .trim()
    .split("\n")[0];
  return result.error?.message ?? (said !== undefined && said !== "" ? said : `exit status ${result.status}`);
}

/** `name` on the service's PATH (or in /usr/bin, /bin), as an absolute path. */
function findExecutable(name: string): string | undefined {
  const directories = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/bin", "/bin"];
  for (const directory of directories) {
    if (directory === "" || !path.isAbsolute(directory)) continue;
    const candidate = path.join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
