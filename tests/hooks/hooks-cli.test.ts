/**
 * Policy modules as the service itself loads them: the bundle (`npm start`, the `roundtable`
 * binary) on the project's Node 24, whose own type stripping runs a user's `.ts` module with no
 * build step. `check` loads each module and calls nothing; `start` refuses a module that does not
 * load with one line naming the file and the cause.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runBundle } from "../cli/run-bundle.js";

function project(policy: string, name: string): { cwd: string; env: Record<string, string> } {
  const cwd = mkdtempSync(path.join(tmpdir(), "rt-hooks-cli-"));
  writeFileSync(path.join(cwd, name), policy);
  writeFileSync(
    path.join(cwd, "roundtable.yaml"),
    `agents:\n  - { name: alice, provider: scripted, model: scripted-1 }\nworlds:\n  - { name: team, agents: [alice], hooks: { module: ./${name}, timeout: 2s } }\nweb: { enabled: false }\n`,
  );
  return { cwd, env: { DATABASE_URL: `file:${path.join(cwd, "roundtable.db")}` } };
}

describe("policy modules through the bundle", () => {
  it("check loads a .ts module (Node's type stripping) and calls nothing", async () => {
    const { cwd, env } = project(
      `import type { OnEvent } from "roundtable/hooks";
const called: string = "called";
export const onEvent: OnEvent = () => { throw new Error(called); };
`,
      "policy.ts",
    );
    const run = await runBundle(["check", "--offline"], { cwd, env });
    expect(run.stdout).toMatch(/hooks team\s+ok\s+\.\/policy\.ts loads and exports onEvent/);
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it("a module that does not load fails check and stops start with one line naming it", async () => {
    const { cwd, env } = project("export const onEvent = (event: { type: string } => event;\n", "broken.ts");
    const check = await runBundle(["check", "--offline"], { cwd, env });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/hooks team\s+FAIL\s+hooks module \.\/broken\.ts could not be loaded: /);
    const start = await runBundle(["start"], { cwd, env: { ...env, PORT: "0" } });
    expect(start.code).toBe(1);
    const lines = start.stderr.split("\n").filter((line) => line.includes("broken.ts"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/hooks module \.\/broken\.ts could not be loaded: \S/);
  });
});
