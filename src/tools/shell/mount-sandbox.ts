import path from "node:path";

/**
 * What a `shell_cmd` call sees of the file system, set up inside its own mount namespace by a
 * small `sh` script run as the namespace's first program (before the init of
 * `process-namespace.ts`). `private` hides the service's own state (the SQLite file and its
 * companions, the config file, the web token file, the default `./data`) and changes nothing
 * else; `strict` also makes every mount read-only except the world's workdir and a private
 * `/tmp`; `none` sets up nothing. Every step is fatal: a call whose sandbox cannot be made
 * does not run (the script exits 125 before the command starts).
 */
export type SandboxMode = "private" | "strict" | "none";

/** The service's own files and directories a sandboxed call must not see (absolute paths). */
export interface ServiceState {
  files: readonly string[];
  directories: readonly string[];
}

/** What one call's script needs. */
export interface SandboxScriptOptions {
  mode: Exclude<SandboxMode, "none">;
  /** util-linux `mount`, absolute. */
  mount: string;
  /** The world's workdir, real path: always there, writable in `strict`. */
  workdir: string;
  /** The call's outbox (real path, inside the workdir): bound over `<workdir>/outbox`. */
  outbox?: string | undefined;
  state: ServiceState;
  /**
   * `strict` leaves `/proc` writable: a service that is not root needs it to map its user back
   * (`/proc/self/uid_map`), and its calls cannot write the host's settings there anyway.
   */
  writableProc?: boolean;
  /**
   * Directories the call's own chain must still reach under `strict`'s private `/tmp` (the
   * directory of the Node.js that runs the init, when the service is installed below `/tmp`):
   * bound back read-only.
   */
  keep?: readonly string[];
}

/** `value` as one single-quoted `sh` word. */
function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function inside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** Every directory above `paths` (not `/`), each once, shallowest first. */
function ancestorsOf(paths: readonly string[]): string[] {
  const found = new Set<string>();
  for (const each of paths) {
    let directory = path.dirname(each);
    while (directory !== path.dirname(directory)) {
      found.add(directory);
      directory = path.dirname(directory);
    }
  }
  return [...found].sort((a, b) => a.split("/").length - b.split("/").length || a.localeCompare(b));
}

/**
 * The script: it opens the workdir (fd 9) and the outbox (fd 8) first, so they can be bound
 * back however they are hidden; hides the state directories around the workdir (a tmpfs), makes
 * the file system read-only in `strict` (each mount of `/proc/self/mountinfo`, then a tmpfs on
 * `/tmp`), binds the workdir and the outbox back (writable), hides the directories inside the
 * workdir and the state files (`/dev/null` bound over each that exists), enters its directory
 * again (through the new mounts) and runs its arguments.
 */
export function sandboxScript(options: SandboxScriptOptions): string {
  const mount = quote(options.mount);
  const workdir = quote(options.workdir);
  const lines = [
    "set -e",
    `exec 9<${workdir}`,
    ...(options.outbox === undefined ? [] : [`exec 8<${quote(options.outbox)}`]),
    `hide_dir() { if [ -d "$1" ]; then ${mount} -t tmpfs -o mode=0755,size=64k roundtable-hidden "$1"; fi; }`,
    `hide_file() { if [ -e "$1" ] && [ ! -d "$1" ]; then ${mount} --bind /dev/null "$1"; fi; }`,
    `bind_back() { ${mount} --no-canonicalize --bind "/proc/self/fd/$1" "$2"${
      options.mode === "strict" ? `; ${mount} -o remount,bind,rw "$2"` : ""
    }; }`,
  ];
  // Each directory above the state becomes a mount point of the call's namespace (bound onto
  // itself, shallowest first): a mount point cannot be renamed, so the call cannot move the
  // service's directory aside, with its hidden state in it, and put a config of its own there.
  lines.push(`pin_dir() { if [ -d "$1" ]; then ${mount} --rbind "$1" "$1"; fi; }`);
  for (const directory of ancestorsOf([...options.state.files, ...options.state.directories])) {
    lines.push(`pin_dir ${quote(directory)}`);
  }
  const around = options.state.directories.filter((directory) => !inside(directory, options.workdir));
  const within = options.state.directories.filter((directory) => inside(directory, options.workdir));
  for (const directory of around) lines.push(`hide_dir ${quote(directory)}`);
  lines.push(`[ -d ${workdir} ] || mkdir -p ${workdir}`);
  // Opened before the private /tmp hides them (at most three: fds 7, 6, 5).
  const kept = options.mode === "strict" ? (options.keep ?? []).filter((each) => inside(each, "/tmp")).slice(0, 3) : [];
  kept.forEach((directory, index) => {
    lines.push(`exec ${7 - index}<${quote(directory)}`);
  });
  if (options.mode === "strict") {
    lines.push(
      `while read -r _id _parent _device _root point _rest; do ${
        options.writableProc === true ? 'if [ "$point" = /proc ]; then continue; fi; ' : ""
      }${mount} -o remount,bind,ro "$point"; done < /proc/self/mountinfo`,
      `${mount} -t tmpfs -o mode=1777 roundtable-tmp /tmp`,
      `[ -d ${workdir} ] || mkdir -p ${workdir}`,
    );
    kept.forEach((directory, index) => {
      const target = quote(directory);
      lines.push(
        `mkdir -p ${target}`,
        `${mount} --no-canonicalize --bind "/proc/self/fd/${7 - index}" ${target}`,
        `${mount} -o remount,bind,ro ${target}`,
        `exec ${7 - index}<&-`,
      );
    });
  }
  lines.push(`bind_back 9 ${workdir}`);
  if (options.outbox !== undefined) lines.push(`bind_back 8 ${quote(path.join(options.workdir, "outbox"))}`);
  for (const directory of within) lines.push(`hide_dir ${quote(directory)}`);
  for (const file of options.state.files) lines.push(`hide_file ${quote(file)}`);
  // The directory the call was started in is still the one under the mounts: enter it again through them.
  lines.push('cd -- "$(pwd -P)"', "exec 9<&- 8<&-", 'exec "$@"');
  return lines.join("\n");
}
