import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { collect, spawnRoundtable } from "../cli/run-roundtable.js";
import { FakeSlack } from "../fakes/slack-api.js";
import type { FakeModelServer } from "../fakes/openai-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { ana, appToken, botToken, channel, signingSecret, teamId } from "./world-slack.js";

let fake: FakeSlack | undefined;
let model: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  await model?.close();
  fake = undefined;
  model = undefined;
});

const config = `agents:
  - name: alice
    provider: openai
    model: gpt-4.1
    displayName: Alice the Releaser
    avatarUrl: https://example.org/alice.png
worlds:
  - name: team
    agents: [alice]
    defaultAgent: alice
channels:
  slack:
    chats: { "*": team }
`;

describe("roundtable start with Slack over Socket Mode", () => {
  it("connects with SLACK_BOT_TOKEN, SLACK_APP_TOKEN and SLACK_API_URL and answers in the thread under the agent's name", async () => {
    fake = await FakeSlack.start({ botToken, appToken, signingSecret, teamId, users: [{ id: ana, name: "ana" }] });
    model = await startOpenAIFake({ apiKey: "sk-test" });
    model.script({ type: "reply", text: ["Shipping ", "at noon."] });
    const directory = mkdtempSync(path.join(tmpdir(), "rt-slack-start-"));
    writeFileSync(path.join(directory, "roundtable.yaml"), config);
    const child = spawnRoundtable(["start"], {
      cwd: directory,
      env: {
        PORT: "0",
        LOG_LEVEL: "info",
        DATABASE_URL: `file:${path.join(directory, "roundtable.db")}`,
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: model.baseUrl,
        SLACK_BOT_TOKEN: botToken,
        SLACK_APP_TOKEN: appToken,
        SLACK_API_URL: fake.apiUrl,
      },
    });
    const finished = collect(child);
    try {
      await fake.socket.whenConnected(30_000);
      const { message } = await fake.userMessage({ channel, user: ana, text: "when do we ship?" });
      // The answer is posted, then edited to its final text: wait for that text.
      const answered = () =>
        fake?.botPosts(channel, message.ts).some((post) => post.text === "Shipping at noon.") ?? false;
      for (let round = 0; round < 600 && !answered(); round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const [answer, ...more] = fake.botPosts(channel, message.ts);
      expect(more).toHaveLength(0);
      expect(answer).toMatchObject({
        text: "Shipping at noon.",
        username: "Alice the Releaser",
        icon_url: "https://example.org/alice.png",
        thread_ts: message.ts,
      });
    } finally {
      child.kill("SIGTERM");
    }
    const run = await finished;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("slack connected over Socket Mode");
    expect(run.stderr).not.toContain(botToken);
    expect(run.stderr).not.toContain(appToken);
  }, 60_000);
});
