import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeDiscord } from "../fakes/discord-api.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { FakeSlack } from "../fakes/slack-api.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { startIdentityFakes } from "./identity-fakes.js";
import { listeningPort, runBundle, spawnBundle } from "./run-bundle.js";
import { collect } from "./run-roundtable.js";

// What users run: dist/bundle/main.js on the project's Node (tests/build-bundle.ts builds it when
// the sources are newer). The other CLI tests run the TypeScript sources, which hid a bundle-only
// failure: `check` said "Api is not a constructor" for every Telegram bot.

let directory: string;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-bundle-"));
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rm(directory, { recursive: true, force: true });
});

const database = (): string => `file:${path.join(directory, "data", "roundtable.db")}`;

describe("the bundle's check", () => {
  it("passes against the Telegram, Slack and Discord fakes", async () => {
    const telegram = await FakeTelegramApi.start([{ token: "123:tg", username: "roundtable_bot" }]);
    closers.push(() => telegram.close());
    const slack = await FakeSlack.start({ botToken: "xoxb-fake", appToken: "xapp-fake", signingSecret: "secret" });
    closers.push(() => slack.close());
    const discord = await FakeDiscord.start([{ token: "discord-token", username: "Roundtable" }]);
    closers.push(() => discord.close());
    const identity = await startIdentityFakes({ openAIKey: "sk-good", telegramToken: "unused" });
    closers.push(() => identity.close());

    const run = await runBundle(["check"], {
      cwd: directory,
      env: {
        DATABASE_URL: database(),
        OPENAI_API_KEY: "sk-good",
        OPENAI_BASE_URL: `${identity.origin}/v1`,
        TELEGRAM_BOT_TOKEN: "123:tg",
        TELEGRAM_API_ROOT: telegram.apiRoot,
        SLACK_BOT_TOKEN: "xoxb-fake",
        SLACK_APP_TOKEN: "xapp-fake",
        SLACK_API_URL: slack.apiUrl,
        DISCORD_BOT_TOKEN: "discord-token",
        DISCORD_API_URL: discord.apiUrl,
      },
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^telegram +ok +bot @roundtable_bot$/m);
    expect(run.stdout).toMatch(/^slack +ok +bot /m);
    expect(run.stdout).toMatch(/^discord +ok +bot Roundtable /m);
    expect(run.stdout).not.toContain("FAIL");
    // Node's deprecation warnings about dependencies (punycode, url.parse) no longer print atop the table.
    expect(run.stdout).toMatch(/^CHECK /);
    expect(run.stderr).toBe("");
  });
});

describe("the bundle's start", () => {
  it("serves /healthz and exits 0 on SIGTERM", async () => {
    const child = spawnBundle(["start"], {
      cwd: directory,
      env: { PORT: "0", DATABASE_URL: database(), OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
    });
    const finished = collect(child);
    const port = await listeningPort(child);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    child.kill("SIGTERM");
    const run = await finished;
    expect(run.code, run.stderr).toBe(0);
    // Only JSON log lines: no raw process warnings among them.
    for (const line of run.stderr.trim().split("\n")) expect(() => JSON.parse(line), line).not.toThrow();
  });

  // Idle memory (docs/performance.md): the start's garbage is collected once the service is up,
  // in a collection that also shrinks the heap V8 grew for the start.
  it("gives back the heap the start grew once it is up", async () => {
    const child = spawnBundle(["start"], {
      cwd: directory,
      env: {
        PORT: "0",
        LOG_LEVEL: "debug",
        DATABASE_URL: database(),
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      },
    });
    const finished = collect(child);
    const released = await logLine(child, "start's garbage released");
    child.kill("SIGTERM");
    const run = await finished;
    expect(run.code, run.stderr).toBe(0);
    const { heapTotalMiB } = released as { heapTotalMiB: { before: number; after: number } };
    expect(heapTotalMiB.after).toBeLessThan(heapTotalMiB.before);
  });
});

/** The first JSON log line on the child's stderr whose message is `message`, parsed. */
function logLine(child: ReturnType<typeof spawnBundle>, message: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stderr?.on("data", (chunk: Buffer | string) => {
      buffered += chunk.toString();
      for (const line of buffered.split("\n")) {
        if (!line.includes(`"msg":${JSON.stringify(message)}`)) continue;
        resolve(JSON.parse(line) as Record<string, unknown>);
      }
    });
    child.on("exit", () => reject(new Error(`no "${message}" line: ${buffered}`)));
  });
}

describe("the bundle's chat", () => {
  it("holds a piped conversation with a model behind the fake OpenAI server", async () => {
    const model = await startOpenAIFake({
      apiKey: "sk-chat",
      steps: [
        { type: "reply", text: ["Hello ", "ana, ", "how can I help?"] },
        { type: "reply", text: ["Four."] },
      ],
    });
    closers.push(() => model.close());
    const run = await runBundle(["chat", "--as", "ana"], {
      cwd: directory,
      env: { DATABASE_URL: database(), OPENAI_API_KEY: "sk-chat", OPENAI_BASE_URL: model.baseUrl },
      input: "hello\nwhat is 2 + 2?\n",
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      "ana: hello\nassistant: Hello ana, how can I help?\nana: what is 2 + 2?\nassistant: Four.\n",
    );
    expect(model.requests).toHaveLength(2);
  });
});
