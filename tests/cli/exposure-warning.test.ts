import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import { repositoryRoot } from "./run-roundtable.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-exposure-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** The example config of docs/configuration.md (its first YAML block; it was the README's until #45). */
async function readmeExample(): Promise<string> {
  const readme = await readFile(path.join(repositoryRoot, "docs", "configuration.md"), "utf8");
  const block = /```yaml\n(providers:[\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error("docs/configuration.md has no example config");
  return block;
}

async function check(
  yaml: string,
  extraEnv: Record<string, string> = { METRICS_TOKEN: "metrics-test" },
): Promise<{ code: number; stdout: string }> {
  await writeFile(path.join(directory, "roundtable.yaml"), yaml);
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await runCli(["check", "--offline"], {
    env: {
      DATABASE_URL: `file:${path.join(directory, "roundtable.db")}`,
      OPENAI_API_KEY: "sk-test",
      TELEGRAM_BOT_TOKEN: "123:abc",
      SLACK_BOT_TOKEN: "xoxb-test",
      SLACK_SIGNING_SECRET: "secret",
      DISCORD_BOT_TOKEN: "discord-test",
      SEARCH_TOKEN: "search-test",
      LOG_LEVEL: "silent",
      ...extraEnv,
    },
    cwd: directory,
    stdin: new PassThrough(),
    stdout,
    stderr: new PassThrough(),
  });
  return { code, stdout: out };
}

describe("the exposure warning of roundtable check", () => {
  it("the README's example (approvers listed on every platform) has no warning", async () => {
    const run = await check(await readmeExample());
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/\bwarn\b/);
  });

  it("without approvers, anyone on Telegram, Slack and Discord could approve: a warn row each, exit code unchanged", async () => {
    const example = await readmeExample();
    const open = example.replace(/^ {4}approvers: .*\n/m, "");
    expect(open).not.toEqual(example);
    const run = await check(open);
    expect(run.code).toBe(0);
    for (const platform of ["telegram", "slack", "discord"]) {
      expect(run.stdout).toMatch(
        new RegExp(
          `^access team\\s+warn\\s+world team: anyone who can reach the bot on ${platform} may talk to its agents and approve their own calls of shell_cmd, notes__\\*; list worlds\\[\\]\\.approvers\\.${platform} \\(without requester\\) or worlds\\[\\]\\.members\\.${platform}$`,
          "m",
        ),
      );
    }
  });

  it("members listed, or requester dropped from approvers, closes it", async () => {
    const example = (await readmeExample()).replace(
      /^ {4}approvers: .*\n/m,
      '    approvers: { telegram: ["requester", "111"], slack: ["*"] }\n    members: { slack: ["U0123"] }\n',
    );
    const run = await check(example);
    expect(run.stdout).toMatch(/^access team\s+warn\s+.* on telegram /m);
    expect(run.stdout).not.toMatch(/on slack/);
    expect(run.stdout).toMatch(/^access team\s+warn\s+.* on discord /m);
  });

  it("admins or role: where a catch-all reaches the world: a warn row saying they match nobody there", async () => {
    const example = (await readmeExample()).replace(
      /^ {4}approvers: .*\n/m,
      '    approvers: { telegram: ["admins", "111"], slack: ["U0123"], discord: ["role:Ops"] }\n    members: { telegram: ["role:dev", "111"] }\n',
    );
    const run = await check(example);
    expect(run.code).toBe(0);
    // Telegram binds "*": both lists are named; Discord and Slack bind by id only: no row.
    expect(run.stdout).toMatch(
      /^access team\s+warn\s+world team: worlds\[\]\.approvers\.telegram lists admins, which match nobody in telegram chats reached through "\*" .*; bind the owner's chats by id in channels\.telegram\.chats$/m,
    );
    expect(run.stdout).toMatch(
      /^access team\s+warn\s+world team: worlds\[\]\.members\.telegram lists role:dev, which/m,
    );
    expect(run.stdout).not.toMatch(/on discord|discord chats|on slack|slack chats/);
  });

  it("approvers `*` where a catch-all reaches the world: a warn row even with members listed", async () => {
    const example = (await readmeExample()).replace(
      /^ {4}approvers: .*\n/m,
      '    approvers: { telegram: ["*"], slack: ["U0123"], discord: ["123"] }\n    members: { telegram: ["111"] }\n',
    );
    const run = await check(example);
    expect(run.stdout).toMatch(
      /^access team\s+warn\s+world team: worlds\[\]\.approvers\.telegram has "\*": anyone in a telegram chat reached through "\*" may approve/m,
    );
  });

  it("/metrics without METRICS_TOKEN on a non-loopback HOST: a warn row saying it is public; loopback or a token: none", async () => {
    const example = await readmeExample();
    const open = await check(example, {});
    expect(open.code).toBe(0);
    expect(open.stdout).toMatch(
      /^metrics\s+warn\s+\/metrics is public: HOST is 0\.0\.0\.0 and METRICS_TOKEN is not set/m,
    );
    expect((await check(example, { HOST: "10.0.0.5" })).stdout).toMatch(/^metrics\s+warn\s+.*HOST is 10\.0\.0\.5/m);
    expect((await check(example, { HOST: "127.0.0.1" })).stdout).not.toMatch(/^metrics/m);
    expect((await check(example, { HOST: "::1" })).stdout).not.toMatch(/^metrics/m);
    expect((await check(example, { METRICS_TOKEN: "t" })).stdout).not.toMatch(/^metrics/m);
  });
});
