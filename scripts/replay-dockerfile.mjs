#!/usr/bin/env node
// `node scripts/replay-dockerfile.mjs [Dockerfile]`: builds and starts the Docker image's
// contents without Docker (none runs in CI here), as faithfully as a plain machine allows:
//   - every stage's WORKDIR is a folder under an empty temporary directory (`/app` → <tmp>/<stage>/app);
//   - each COPY copies from the build context (this repository, honouring .dockerignore) or,
//     with --from, from an earlier stage's folder;
//   - each RUN of a build stage runs there with `sh -c`, the stage's ENV, and this project's own
//     Node first on PATH (node_modules/.bin); RUNs of the final stage (image set-up such as
//     mkdir/chown of absolute paths) are listed, not run;
//   - the final stage's CMD is started in its WORKDIR with its ENV (PORT set to a free port),
//     its HEALTHCHECK command is run until it passes, then SIGTERM must stop it with exit 0.
// An instruction it does not know fails the replay: keep the Dockerfile to these.
// The npm cache of this machine is used (prefer-offline), so `npm install` needs no network
// for what was installed before.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dockerfile = path.resolve(process.argv[2] ?? path.join(root, "Dockerfile"));
const context = path.dirname(dockerfile);
const keep = process.env.REPLAY_KEEP === "1";
const binDirectory = path.join(root, "node_modules", ".bin");

function say(line) {
  process.stdout.write(`replay: ${line}\n`);
}

class ReplayFailure extends Error {}

function fail(line) {
  throw new ReplayFailure(line);
}

/** Instructions with their arguments; continuation lines joined, comments and directives dropped. */
function parseInstructions(text) {
  const instructions = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) continue;
    if (pending !== "" && line.trimStart().startsWith("#")) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = (pending + line).trim();
    pending = "";
    const match = /^(\w+)\s+([\s\S]*)$/.exec(whole);
    if (!match) fail(`cannot read the line ${JSON.stringify(whole)}`);
    instructions.push({ keyword: match[1].toUpperCase(), rest: match[2].trim() });
  }
  return instructions;
}

/** `--name=value` flags at the start of an instruction's arguments. */
function takeFlags(rest) {
  const flags = {};
  let remaining = rest;
  for (;;) {
    const match = /^--([\w-]+)=(\S+)\s+/.exec(remaining);
    if (!match) return { flags, remaining };
    flags[match[1]] = match[2];
    remaining = remaining.slice(match[0].length);
  }
}

/** JSON exec form (`["a", "b"]`) or shell form (run with `sh -c`). */
function commandOf(rest) {
  if (rest.startsWith("[")) return JSON.parse(rest);
  return ["sh", "-c", rest];
}

/** `ENV a=1 b=2` (or the old `ENV a 1`). */
function parseEnv(rest) {
  if (!rest.includes("=")) {
    const [name, ...value] = rest.split(/\s+/);
    return { [name]: value.join(" ") };
  }
  const values = {};
  for (const match of rest.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    values[match[1]] = match[2].startsWith('"') ? JSON.parse(match[2]) : match[2];
  }
  return values;
}

/** .dockerignore as Docker reads it: paths from the context root, `*`, `**`, `?`, `!` exceptions, last match wins. */
function readDockerignore() {
  const file = path.join(context, ".dockerignore");
  if (!existsSync(file)) return () => false;
  const rules = readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const exception = line.startsWith("!");
      const pattern = path.posix.normalize((exception ? line.slice(1) : line).replace(/^\/+/, "")).replace(/\/$/, "");
      const source = pattern
        .split("/")
        .map((part) =>
          part === "**"
            ? "(?:.*)"
            : part
                .replace(/[.+^${}()|[\]\\]/g, "\\$&")
                .replaceAll("*", "[^/]*")
                .replaceAll("?", "[^/]"),
        )
        .join("/")
        .replaceAll("(?:.*)/", "(?:.*/)?");
      return { exception, regex: new RegExp(`^${source}$`) };
    });
  return (relative) => {
    let ignored = false;
    // A rule that matches a parent directory covers everything under it.
    const parts = relative.split("/");
    for (const rule of rules) {
      for (let length = 1; length <= parts.length; length++) {
        if (rule.regex.test(parts.slice(0, length).join("/"))) {
          ignored = !rule.exception;
          break;
        }
      }
    }
    return ignored;
  };
}

/** Copies `source` (file or directory contents) to `target`, skipping what `ignored` says. */
function copyInto(source, target, ignored, relativeBase) {
  const stat = lstatSync(source);
  if (stat.isDirectory()) {
    mkdirSync(target, { recursive: true });
    for (const name of readdirSync(source)) {
      const relative = relativeBase === "" ? name : `${relativeBase}/${name}`;
      if (ignored(relative)) continue;
      copyInto(path.join(source, name), path.join(target, name), ignored, relative);
    }
    return;
  }
  mkdirSync(path.dirname(target), { recursive: true });
  cpSync(source, target, { dereference: false, verbatimSymlinks: true });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const instructions = parseInstructions(readFileSync(dockerfile, "utf8"));
const stages = [];
for (const instruction of instructions) {
  if (instruction.keyword === "FROM") {
    const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.rest);
    if (!match) fail(`FROM ${instruction.rest}`);
    stages.push({ image: match[1], name: match[2] ?? `stage-${stages.length}`, instructions: [] });
  } else if (stages.length === 0) fail(`${instruction.keyword} before FROM`);
  else stages.at(-1).instructions.push(instruction);
}
if (stages.length === 0) fail("no FROM in the Dockerfile");

const temporary = mkdtempSync(path.join(tmpdir(), "roundtable-replay-"));
const ignored = readDockerignore();
const basePath = [binDirectory, process.env.PATH ?? ""].join(path.delimiter);
say(`${path.relative(root, dockerfile) || dockerfile}: ${stages.length} stage(s) into ${temporary}`);

let finalStage;
try {
  for (const [index, stage] of stages.entries()) {
    const final = index === stages.length - 1;
    stage.root = path.join(temporary, stage.name);
    stage.workdir = "/";
    stage.env = {};
    const inside = (containerPath) => path.join(stage.root, path.posix.resolve(stage.workdir, containerPath));
    say(`FROM ${stage.image}${final ? " (final stage)" : ""}`);
    for (const { keyword, rest } of stage.instructions) {
      switch (keyword) {
        case "WORKDIR":
          stage.workdir = path.posix.resolve(stage.workdir, rest);
          mkdirSync(inside("."), { recursive: true });
          break;
        case "ENV":
          Object.assign(stage.env, parseEnv(rest));
          break;
        case "COPY": {
          const { flags, remaining } = takeFlags(rest);
          const parts = remaining.startsWith("[") ? JSON.parse(remaining) : remaining.split(/\s+/);
          const destination = parts.pop();
          const from = flags.from === undefined ? undefined : stages.find((candidate) => candidate.name === flags.from);
          if (flags.from !== undefined && !from) fail(`COPY --from=${flags.from}: no such stage`);
          for (const source of parts) {
            const relative = path.posix.normalize(source).replace(/^\/+/, "").replace(/^\.$/, "").replace(/\/$/, "");
            const origin = from ? path.join(from.root, relative) : path.join(context, relative);
            const skip = from ? () => false : ignored;
            if (!existsSync(origin) || (relative !== "" && skip(relative))) {
              fail(
                `COPY ${source}: not in ${from ? `stage ${from.name}` : "the build context (or excluded by .dockerignore)"}`,
              );
            }
            // A directory's contents go into the destination; a file goes into it when it ends in "/".
            const intoDirectory = lstatSync(origin).isDirectory() || destination.endsWith("/") || parts.length > 1;
            const target = lstatSync(origin).isDirectory()
              ? inside(destination)
              : intoDirectory
                ? path.join(inside(destination), path.basename(relative))
                : inside(destination);
            copyInto(origin, target, skip, relative);
          }
          say(`COPY ${rest}`);
          break;
        }
        case "RUN": {
          if (final) {
            say(`RUN ${rest} (image set-up in the final stage: not run here)`);
            break;
          }
          say(`RUN ${rest}`);
          const [command, ...args] = commandOf(rest);
          const ran = spawnSync(command, args, {
            cwd: inside("."),
            stdio: "inherit",
            env: {
              PATH: basePath,
              HOME: process.env.HOME ?? temporary,
              npm_config_prefer_offline: "true",
              ...stage.env,
            },
          });
          if (ran.status !== 0) fail(`RUN ${rest} exited with ${ran.status ?? ran.signal}`);
          break;
        }
        case "CMD":
          stage.command = commandOf(rest);
          break;
        case "HEALTHCHECK": {
          const { remaining } = takeFlags(rest);
          const match = /^CMD\s+([\s\S]+)$/.exec(remaining);
          if (!match) fail(`HEALTHCHECK ${rest}: expected CMD`);
          stage.healthcheck = commandOf(match[1]);
          break;
        }
        case "USER":
        case "EXPOSE":
        case "VOLUME":
        case "LABEL":
          say(`${keyword} ${rest} (no effect on a replay)`);
          break;
        default:
          fail(
            `${keyword} is not replayed: keep the Dockerfile to FROM, WORKDIR, ENV, COPY, RUN, CMD, HEALTHCHECK, USER, EXPOSE, VOLUME, LABEL`,
          );
      }
    }
    finalStage = stage;
  }
  if (!finalStage.command) fail("the final stage has no CMD");
  if (!finalStage.healthcheck) fail("the final stage has no HEALTHCHECK");
  await startAndCheck(finalStage);
  say("passed: the image builds, starts, answers its healthcheck and stops on SIGTERM");
} catch (error) {
  if (!(error instanceof ReplayFailure)) throw error;
  process.stderr.write(`replay: FAILED: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  if (keep) say(`kept ${temporary}`);
  else rmSync(temporary, { recursive: true, force: true });
}

async function startAndCheck(stage) {
  const port = String(await freePort());
  const cwd = path.join(stage.root, stage.workdir);
  const env = { PATH: basePath, HOME: process.env.HOME ?? temporary, ...stage.env, PORT: port, HOST: "127.0.0.1" };
  const [command, ...args] = stage.command;
  say(`CMD ${JSON.stringify(stage.command)} in ${cwd} (PORT=${port})`);
  const service = spawn(command, args, { cwd, env, stdio: ["ignore", "inherit", "pipe"] });
  let output = "";
  service.stderr.on("data", (chunk) => {
    output += chunk.toString();
  });
  const exited = new Promise((resolve) => service.on("exit", (code, signal) => resolve({ code, signal })));
  let state = "running";
  void exited.then(() => {
    state = "exited";
  });
  // The HEALTHCHECK command, as Docker runs it inside the container, until it passes.
  for (let attempt = 1; ; attempt++) {
    if (state === "exited") fail(`the service exited before its healthcheck passed:\n${output}`);
    if (attempt > 120) {
      service.kill("SIGKILL");
      fail(`HEALTHCHECK never passed:\n${output}`);
    }
    const [checkCommand, ...checkArgs] = stage.healthcheck;
    const check = spawnSync(checkCommand, checkArgs, { cwd, env, encoding: "utf8", timeout: 5000 });
    if (check.status === 0) {
      say(`HEALTHCHECK passed (attempt ${attempt})`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  service.kill("SIGTERM");
  const { code, signal } = await exited;
  if (code !== 0) fail(`SIGTERM: the service exited with ${code ?? signal}:\n${output}`);
  say("SIGTERM: stopped with exit 0");
}
