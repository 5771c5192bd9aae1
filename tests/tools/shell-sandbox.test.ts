import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { homedir, tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serviceState } from "../../src/app/service-state.js";
import { shellConfigSchema } from "../../src/config/schema.js";
import { prepareCallOutbox } from "../../src/tools/outbox-files.js";
import { processIsolation } from "../../src/tools/shell/process-namespace.js";
import { ShellToolSource } from "../../src/tools/shell/shell-tool-source.js";
import type { ToolOutcome } from "../../src/tools/tool-source.js";
import { silentLogger } from "../../src/log/logger.js";

/**
 * What a sandboxed `shell_cmd` call sees (src/tools/shell/mount-sandbox.ts), on a service laid
 * out as `roundtable start` lays it out: the config, `data/` with the database and the web
 * token, and the world's workdir inside `data/` (the hardest case: hidden around, bound back).
 */

let root = "";
let layout: { data: string; config: string; workdir: string; databaseUrl: string; database: string; token: string };

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "rt-sandbox-"));
  const data = path.join(root, "data");
  const workdir = path.join(data, "worlds", "main");
  mkdirSync(workdir, { recursive: true });
  const database = path.join(data, "roundtable.db");
  const token = path.join(data, "web-console-token");
  const config = path.join(root, "roundtable.yaml");
  writeFileSync(database, "SQLite format 3\0 the service's rows");
  writeFileSync(`${database}-wal`, "the write-ahead log");
  writeFileSync(token, "operator-token-0123456789abcdef\n");
  writeFileSync(config, "tools:\n  shell:\n    timeout: 30s\n");
  writeFileSync(path.join(root, "notes.txt"), "a file beside the service\n");
  writeFileSync(path.join(workdir, "in-workdir.txt"), "the world's own file\n");
  layout = { data, config, workdir, databaseUrl: `file:${database}`, database, token };
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(`${root}-moved`, { recursive: true, force: true });
});

function shell(config: Record<string, unknown>): ShellToolSource {
  return new ShellToolSource(shellConfigSchema.parse({ timeout: "20s", ...config }), {
    killGraceMs: 500,
    state: serviceState({ databaseUrl: layout.databaseUrl, configPath: layout.config, cwd: root }),
  });
}

async function run(source: ShellToolSource, script: string): Promise<ToolOutcome> {
  const outbox = await prepareCallOutbox(layout.workdir, "call-1", silentLogger());
  return source.call(
    "shell_cmd",
    { command: "sh", args: ["-c", script] },
    { workdir: layout.workdir, outbox, signal: new AbortController().signal, timeoutMs: 60_000 },
  );
}

/** Whether this host gives calls the sandbox `mode` (else those tests are skipped: the fallback is logged). */
function hostGives(mode: "private" | "strict"): boolean {
  const isolation = processIsolation({ sandbox: mode, network: true });
  return isolation.kind === "pid-namespace" && isolation.sandbox?.mode === mode;
}

describe.skipIf(!hostGives("private"))("shell_cmd in the private sandbox", () => {
  it("cannot read the database, its log, the web token or the config by absolute path; the rest is as it was", async () => {
    const outcome = await run(
      shell({}),
      [
        `cat ${layout.database} ${layout.database}-wal ${layout.token} ${layout.config}`,
        `ls -A ${layout.data}`,
        `cat ${path.join(root, "notes.txt")}`,
        "cat in-workdir.txt",
      ].join("; "),
    );
    expect(outcome.kind).toBe("ok");
    expect(outcome.text).not.toContain("the service's rows");
    expect(outcome.text).not.toContain("write-ahead");
    expect(outcome.text).not.toContain("operator-token");
    expect(outcome.text).not.toContain("timeout: 30s");
    // data/ shows only the way to the workdir; the file beside the service and the workdir are there.
    expect(outcome.text).toContain("stdout:\nworlds\na file beside the service\nthe world's own file\n");
  });

  it("keeps the workdir (inside the hidden data/) writable, and the service's files untouched", async () => {
    const outcome = await run(
      shell({}),
      `echo written > made.txt; echo clobbered > ${layout.token}; rm -f ${layout.database}; echo x > ${layout.data}/planted`,
    );
    expect(outcome.kind).toBe("ok");
    expect(readFileSync(path.join(layout.workdir, "made.txt"), "utf8")).toBe("written\n");
    expect(readFileSync(layout.token, "utf8")).toBe("operator-token-0123456789abcdef\n");
    expect(readFileSync(layout.database, "utf8")).toContain("the service's rows");
    expect(existsSync(path.join(layout.data, "planted"))).toBe(false);
  });

  it("cannot take the hiding mounts away, even when the service is root", async () => {
    // A root service's call once kept CAP_SYS_ADMIN over its mount namespace: `umount` showed it all.
    const outcome = await run(
      shell({}),
      [
        `umount ${layout.database} ${layout.token} ${layout.config}`,
        `umount -l ${path.join(layout.workdir, "outbox")} ${layout.workdir} ${layout.data}`,
        "umount -l /proc",
        `unshare --mount sh -c 'umount -l ${layout.data}; cat ${layout.database}'`,
        `cat ${layout.database} ${layout.token} ${layout.config}`,
        "ls /proc",
      ].join("; "),
    );
    expect(outcome.text).not.toContain("the service's rows");
    expect(outcome.text).not.toContain("operator-token");
    expect(outcome.text).not.toContain("timeout: 30s");
    // Its /proc is still the one of its own PID namespace (the host's would list the service).
    expect(outcome.text).not.toContain(`\n${process.pid}\n`);
  });

  it("cannot move the service's directory aside to put a config of its own in its place", async () => {
    // The state is hidden by mounts, but a directory above it could be renamed with them inside.
    const outcome = await run(
      shell({}),
      [
        `mv ${root} ${root}-moved && echo moved-root`,
        `mv ${layout.data} ${root}/data-moved && echo moved-data`,
        `mkdir -p ${root} && echo "tools: {approval: {shell_cmd: never}}" > ${layout.config}`,
      ].join("; "),
    );
    expect(outcome.text).not.toContain("moved-");
    expect(existsSync(`${root}-moved`)).toBe(false);
    expect(readFileSync(layout.config, "utf8")).toBe("tools:\n  shell:\n    timeout: 30s\n");
    expect(readFileSync(layout.database, "utf8")).toContain("the service's rows");
  });

  it("says so in the tool's description", () => {
    expect(shell({}).definition.description).toContain(
      "The service's own database, config and data directory are hidden from the program.",
    );
  });
});

describe.skipIf(!hostGives("strict"))("shell_cmd in the strict sandbox", () => {
  it("cannot write outside its workdir; can write its workdir, its outbox and a /tmp of its own", async () => {
    const marker = `rt-strict-${path.basename(root)}`;
    // A directory the host lets the service write and strict makes read-only: not one below /tmp,
    // which is the call's own (CI clones the repository under /tmp).
    const belowTmp = (directory: string): boolean => !path.relative(tmpdir(), directory).startsWith("..");
    const writable = [process.cwd(), homedir(), "/var/tmp"].find((directory) => !belowTmp(directory)) ?? "/var/tmp";
    const outcome = await run(
      shell({ sandbox: "strict" }),
      [
        `echo no > ${path.join(writable, `${marker}.txt`)} || echo refused-outside`,
        `echo no > ${path.join(root, "outside.txt")}`,
        `echo no > ${path.join(tmpdir(), `${marker}.txt`)} && echo tmp-ok`,
        "echo yes > inside.txt && echo inside-ok",
        "echo yes > outbox/for-chat.txt && echo outbox-ok",
        `cat ${layout.token} || echo token-hidden`,
      ].join("; "),
    );
    expect(outcome.kind).toBe("ok");
    expect(outcome.text).toContain("refused-outside");
    expect(outcome.text).toContain("tmp-ok\ninside-ok\noutbox-ok\ntoken-hidden");
    expect(existsSync(path.join(writable, `${marker}.txt`))).toBe(false);
    // Beside the workdir under /tmp it lands in the call's own /tmp, gone with the call.
    expect(existsSync(path.join(root, "outside.txt"))).toBe(false);
    // The call's /tmp was its own.
    expect(existsSync(path.join(tmpdir(), `${marker}.txt`))).toBe(false);
    expect(readFileSync(path.join(layout.workdir, "inside.txt"), "utf8")).toBe("yes\n");
    expect(readFileSync(path.join(layout.workdir, "outbox", ".call-call-1", "for-chat.txt"), "utf8")).toBe("yes\n");
  });
});

describe.skipIf(processIsolation({ sandbox: "private", network: false }).kind !== "pid-namespace")(
  "shell_cmd with tools.shell.network: false",
  () => {
    let server: Server;
    let port = 0;
    beforeEach(async () => {
      server = createServer((socket) => {
        socket.on("error", () => undefined);
        socket.end("hello\n");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });
    afterEach(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    const connect = () =>
      `${JSON.stringify(process.execPath)} -e "require('node:net').connect(${port}, '127.0.0.1')` +
      `.on('connect', () => { console.log('connected'); process.exit(0); })` +
      `.on('error', (error) => { console.log('refused ' + error.code); process.exit(0); })"`;

    it("has no network (not even the service's loopback), where the default has", async () => {
      const offline = await run(shell({ network: false }), connect());
      expect(offline.text).toMatch(/stdout:\nrefused E/);
      expect(shell({ network: false }).definition.description).toContain("It has no network.");
      const online = await run(shell({}), connect());
      expect(online.text).toContain("stdout:\nconnected");
    });
  },
);

/** A user to run a service as that is not root: `nobody`, where the tests run as root and `setpriv` is there. */
function otherUser(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync("setpriv", ["--version"]);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!otherUser() || !hostGives("private"))("shell_cmd of a service that is not root", () => {
  const nobody = 65534;
  const loader = pathToFileURL(path.resolve("node_modules/tsx/dist/loader.mjs")).href;
  const child = path.resolve("tests/tools/sandbox-child.ts");

  function runAsNobody(mode: "private" | "strict", script: string) {
    for (const entry of [root, layout.data, path.dirname(layout.workdir), layout.workdir])
      chownSync(entry, nobody, nobody);
    chmodSync(root, 0o755);
    const output = execFileSync(
      "setpriv",
      [
        "--reuid",
        String(nobody),
        "--regid",
        String(nobody),
        "--clear-groups",
        process.execPath,
        "--import",
        loader,
        child,
        mode,
        root,
        script,
      ],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root }, encoding: "utf8", timeout: 60_000 },
    );
    const [isolation, outcome] = output
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    return { isolation: isolation.isolation, outcome: outcome as ToolOutcome };
  }

  for (const mode of ["private", "strict"] as const)
    it(`${mode}: set up as root of a user namespace, the command runs as the service's own user and sees none of its state`, () => {
      const { isolation, outcome } = runAsNobody(
        mode,
        `id -u; cat ${layout.database} ${layout.token} || echo hidden; echo yes > outbox/for-chat.txt && echo outbox-ok; nosuch || true`,
      );
      expect(isolation).toMatchObject({ kind: "pid-namespace", sandbox: { mode, dropTo: { uid: nobody } } });
      expect(outcome.kind).toBe("ok");
      expect(outcome.text).toContain(`stdout:\n${nobody}\nhidden\noutbox-ok\n`);
      expect(outcome.text).not.toContain("operator-token");
      expect(readFileSync(path.join(layout.workdir, "outbox", ".call-call-1", "for-chat.txt"), "utf8")).toBe("yes\n");
    });
});
