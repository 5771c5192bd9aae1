import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { ConfigError } from "../../src/errors/roundtable-error.js";
import { runCliInProcess } from "../cli/run-cli-in-process.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-budgets-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const env = { OPENAI_API_KEY: "sk-test" };
const agents = `
agents:
  - { name: alice, provider: openai, model: gpt-4.1 }
  - { name: bob, provider: openai, model: my-fine-tune }
`;

async function load(yaml: string) {
  await writeFile(path.join(directory, "roundtable.yaml"), yaml);
  return loadConfig({ env, cwd: directory });
}

async function refusal(yaml: string): Promise<string> {
  try {
    await load(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error("expected the config to be refused");
}

describe("budget config", () => {
  it("refuses a cost cap with an unpriced model, naming the agent, at load (start) and in check", async () => {
    const yaml = `${agents}worlds:\n  - name: team\n    agents: [alice, bob]\n    limits: { perPerson: { costPerDay: 2 } }\n`;
    const message = await refusal(yaml);
    expect(message).toContain("worlds[0].limits");
    expect(message).toContain('agent "bob" (model my-fine-tune) has no price');
    expect(message).not.toContain('agent "alice"');
    const check = await runCliInProcess(["check", "--config", path.join(directory, "roundtable.yaml")], { env });
    expect(check.code).not.toBe(0);
    expect(check.stdout + check.stderr).toContain('agent "bob" (model my-fine-tune) has no price');
  });

  it("accepts it with unpriced: count-tokens, with a price, or with token caps only", async () => {
    const world = (limits: string) =>
      `${agents}worlds:\n  - name: team\n    agents: [alice, bob]\n    limits: ${limits}\n`;
    await expect(load(world("{ costPerMonth: 50, unpriced: count-tokens }"))).resolves.toBeDefined();
    await expect(
      load(world("{ tokensPerMonth: 1000000, perAgent: { bob: { tokensPerDay: 5000 } } }")),
    ).resolves.toBeDefined();
    const priced = `${agents.replace("model: my-fine-tune }", "model: my-fine-tune, price: { input: 1, output: 2 } }")}worlds:\n  - name: team\n    agents: [alice, bob]\n    limits: { costPerDay: 5 }\n`;
    const loaded = await load(priced);
    expect(loaded.config.worlds[0]?.limits.costPerDay).toBe(5);
  });

  it("names the path of a bad budget key", async () => {
    const world = (limits: string) =>
      `${agents}worlds:\n  - name: team\n    agents: [alice, bob]\n    limits: ${limits}\n`;
    expect(await refusal(world("{ overBudget: maybe }"))).toContain("worlds[0].limits.overBudget");
    expect(await refusal(world("{ alerts: [80, 120] }"))).toContain("worlds[0].limits.alerts[1]");
    expect(await refusal(world("{ perAgent: { carol: { tokensPerDay: 10 } } }"))).toContain(
      "worlds[0].limits.perAgent.carol",
    );
    expect(await refusal(world("{ perPerson: { costPerWeek: 1 } }"))).toContain("worlds[0].limits.perPerson");
  });

  it("the worked example of docs/budgets.md is a valid config", async () => {
    const doc = await readFile(path.join(import.meta.dirname, "..", "..", "docs", "budgets.md"), "utf8");
    const yaml = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
    await writeFile(path.join(directory, "roundtable.yaml"), yaml);
    const loaded = await loadConfig({
      env: { OPENAI_API_KEY: "sk-test", SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "secret" },
      cwd: directory,
    });
    expect(loaded.config.worlds[0]?.limits).toMatchObject({
      costPerMonth: 300,
      perPerson: { costPerDay: 6 },
      perAgent: { deep: { costPerDay: 10 } },
      overBudget: "ask",
      raiseBy: 50,
    });
  });
});
