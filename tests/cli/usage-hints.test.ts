import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "./run-cli-in-process.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-usage-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Runs the CLI in this process with `env` (nothing of the test's own) and collects its output. */
async function run(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcess(argv, {
    env: { LOG_LEVEL: "silent", DATABASE_URL: `file:${path.join(directory, "r.db")}`, ...env },
    cwd: directory,
  });
}

describe("bad usage is told as such (#28)", () => {
  it("start --port 99999 is bad usage: exit 2 with the command's help", async () => {
    const result = await run(["start", "--port", "99999"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('roundtable start: --port: expected a port number from 0 to 65535, got "99999"');
    expect(result.stderr).toContain("Usage: roundtable start");
  });

  it("a bad PORT in the environment stays a config error (exit 1)", async () => {
    const result = await run(["start"], { PORT: "99999" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT: expected a port number from 0 to 65535, got "99999"');
  });

  it("npm start --config x (no --): npm 11 keeps --config and passes x on; the hint says to put -- first", async () => {
    // What `npm start --config team.yaml` hands the CLI: `start team.yaml`, npm_config_config=true.
    const result = await run(["start", "team.yaml"], { npm_config_config: "true", npm_lifecycle_event: "start" });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "roundtable: npm took --config as its own setting, so roundtable never saw it. Put -- before roundtable's options: npm start -- --config team.yaml (or npm run roundtable -- start --config team.yaml).\n",
    );
  });

  it("older npm passes the file as npm_config_config and nothing else; the hint names it", async () => {
    const result = await run(["chat"], { npm_config_config: "team.yaml", npm_lifecycle_event: "roundtable" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("npm start -- --config team.yaml");
  });

  it("with -- the option reaches roundtable and no hint is given", async () => {
    const result = await run(["--config", "missing.yaml", "check", "--offline"], {
      npm_config_config: "true",
      npm_lifecycle_event: "roundtable",
    });
    expect(result.stderr).not.toContain("npm took");
    expect(result.stderr).toContain("missing.yaml");
  });
});
