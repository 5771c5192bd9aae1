import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { ana, groupId, mainToken } from "../telegram/helpers.js";
import { leadingMention } from "../telegram/world-telegram.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
const child = path.join(root, "tests/world/stream-kill-child.ts");
const fullAnswer = "First part of the answer, and the rest of it, complete.";

/** Run the child; SIGKILL it once a stdout line matches `until`. Resolves at its exit. */
function runChild(args: string[], until?: RegExp): Promise<{ lines: string[]; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ["--import", loader, child, ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let buffer = "";
    let stderr = "";
    process_.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    process_.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let index = buffer.indexOf("\n"); index >= 0; index = buffer.indexOf("\n")) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        lines.push(line);
        if (until?.test(line)) process_.kill("SIGKILL");
      }
    });
    process_.on("error", reject);
    process_.on("exit", (code) => resolve({ lines, code, stderr }));
  });
}

let fake: FakeTelegramApi;
beforeEach(async () => {
  fake = await FakeTelegramApi.start([
    { token: mainToken, username: "roundtable_bot", firstName: "Roundtable", canReadAllGroupMessages: true },
  ]);
  fake.addChat({ id: groupId, type: "supergroup", title: "Release team" });
});
afterEach(async () => {
  await fake.close();
});

/** SIGKILL while bob's answer streams, restart: the answer shows once, complete, in the message already there. */
async function killWhileStreaming(databaseUrl: string): Promise<void> {
  const text = "@bob explain the release";
  fake.userMessage(mainToken, { chatId: groupId, from: ana, text, entities: leadingMention(text) });
  const first = await runChild(["stream-and-hang", databaseUrl, fake.apiRoot], /^STREAMING$/);
  expect(first.lines, first.stderr).toContain("STREAMING");
  expect(first.code).toBeNull(); // killed
  const bot = () => fake.messagesIn(groupId).filter((message) => message.from.is_bot);
  const draft = bot();
  expect(draft.map((message) => message.text)).toEqual(["bob: First part of the answer,"]);

  const second = await runChild(["resume", databaseUrl, fake.apiRoot]);
  expect(second.code, second.stderr).toBe(0);
  expect(second.lines).toContain("ANSWERED");
  const shown = bot();
  expect(shown.map((message) => message.text)).toEqual([`bob: ${fullAnswer}`]);
  expect(shown[0]?.message_id).toBe(draft[0]?.message_id);
}

describe("a crash while an answer streams (real processes, long-polling Telegram fake)", () => {
  it("SQLite: after the restart the chat shows the answer once, complete, in the message already there", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), "rt-stream-kill-"));
    await killWhileStreaming(`file:${path.join(directory, "roundtable.db")}`);
  }, 60_000);
});

describePostgres("a crash while an answer streams, on PostgreSQL", (serverUrl) => {
  it("the restarted process takes the dead one's step back within seconds and finishes the message in place", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      await killWhileStreaming(database.url);
    } finally {
      await database.drop();
    }
  }, 60_000);
});
