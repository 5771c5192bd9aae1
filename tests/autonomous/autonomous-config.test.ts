import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { ConfigError } from "../../src/errors/roundtable-error.js";
import { runCliInProcess } from "../cli/run-cli-in-process.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-autonomous-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const env = { OPENAI_API_KEY: "sk-test", DATABASE_URL: "file:./data/roundtable.db" };

const head = `
agents:
  - { name: alice, provider: openai, model: gpt-4.1 }
  - { name: bob, provider: openai, model: gpt-4.1 }
worlds:
  - { name: team, agents: [alice], approvers: { slack: [U1ANA] } }
  - { name: other, agents: [bob] }
channels:
  slack: { botToken: xoxb-1, signingSecret: s, chats: { C1: team, C2: other } }
  telegram: { token: "1:t", chats: { "-100": other } }
`;

function schedule(overrides: string): string {
  return `${head}schedules:\n  - { name: standup, world: team, chat: { platform: slack, id: C1 }, agent: alice, cron: "0 9 * * 1-5", prompt: Go, ${overrides} }\n`;
}

async function errorFor(yaml: string, environment: Record<string, string> = env): Promise<string> {
  await writeFile(path.join(directory, "roundtable.yaml"), yaml);
  try {
    await loadConfig({ env: environment, cwd: directory });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error("expected the config to be refused");
}

describe("schedules and triggers in the config", () => {
  it("defaults: timezone UTC, missed once; a trigger's secret from an environment variable", async () => {
    await writeFile(
      path.join(directory, "roundtable.yaml"),
      `${schedule("")}triggers:\n  - { name: alerts, world: other, chat: { platform: telegram, id: -100 }, agent: bob, secret: "\${ALERT_SECRET}", prompt: "{{body}}" }\n`,
    );
    const { config } = await loadConfig({ env: { ...env, ALERT_SECRET: "from-the-environment" }, cwd: directory });
    expect(config.schedules[0]).toMatchObject({ timezone: "UTC", missed: "once" });
    expect(config.triggers[0]).toMatchObject({
      secret: "from-the-environment",
      chat: { platform: "telegram", id: "-100" },
    });
  });

  it.each([
    ["world: nowhere", /^roundtable\.yaml: schedules\[0\]\.world: unknown world "nowhere"/],
    ["agent: bob", /^roundtable\.yaml: schedules\[0\]\.agent: agent "bob" is not in world "team"/],
    ["agent: carol", /^roundtable\.yaml: schedules\[0\]\.agent: unknown agent "carol"/],
    ['cron: "61 * * * *"', /^roundtable\.yaml: schedules\[0\]\.cron: invalid cron expression "61 \* \* \* \*"/],
    ['cron: "* * * *"', /^roundtable\.yaml: schedules\[0\]\.cron: expected five fields/],
    ["timezone: Mars/Base", /^roundtable\.yaml: schedules\[0\]\.timezone: unknown timezone "Mars\/Base"/],
    ["missed: always", /^roundtable\.yaml: schedules\[0\]\.missed: /],
  ])("a schedule with %s is a config error naming the path", async (override, expected) => {
    const yaml = schedule(override).replace(/(world|agent|cron): [^,]+, (?=.*\1: )/, "");
    expect(await errorFor(yaml)).toMatch(expected);
  });

  it("a chat not bound to the schedule's or trigger's world is a config error naming the path", async () => {
    expect(await errorFor(schedule("").replace("id: C1", "id: C2"))).toMatch(
      /^roundtable\.yaml: schedules\[0\]\.chat: slack chat "C2" is bound to world "other"; bind it to "team" in channels\.slack\.chats/,
    );
    const trigger = `${head}triggers:\n  - { name: t, world: team, chat: { platform: telegram, id: "-999" }, agent: alice, secret: s, prompt: x }\n`;
    expect(await errorFor(trigger)).toMatch(
      /^roundtable\.yaml: triggers\[0\]\.chat: telegram chat "-999" is bound to no world/,
    );
  });

  it("roundtable schedules lists the next three due times in the schedule's timezone; check warns where only requester approves", async () => {
    await writeFile(
      path.join(directory, "roundtable.yaml"),
      `${head}schedules:
  - { name: standup, world: team, chat: { platform: slack, id: C1 }, agent: alice, cron: "0 9 * * *", timezone: Europe/Berlin, prompt: Go }
triggers:
  - { name: alerts, world: other, chat: { platform: telegram, id: "-100" }, agent: bob, secret: s3cret, prompt: "{{body}}" }
`,
    );
    const listed = await runCliInProcess(["schedules", "--json"], { env, cwd: directory });
    expect(listed.code, listed.stderr).toBe(0);
    const [standup] = JSON.parse(listed.stdout) as { name: string; next: string[] }[];
    expect(standup?.name).toBe("standup");
    expect(standup?.next).toHaveLength(3);
    // 09:00 in Berlin is 07:00 or 08:00 UTC, whatever the season.
    for (const due of standup?.next ?? []) expect(due).toMatch(/T0[78]:00:00\.000Z$/);
    const table = await runCliInProcess(["schedules"], { env, cwd: directory });
    expect(table.stdout).toMatch(/standup\s+team\s+slack:C1\s+alice\s+0 9 \* \* \*\s+Europe\/Berlin/);

    const checked = await runCliInProcess(["check", "--offline"], { env, cwd: directory });
    expect(checked.stdout).toMatch(/trigger alerts\s+warn\s+world other has no approvers for telegram/);
    expect(checked.stdout).not.toMatch(/schedule standup\s+warn/);
  });
});
