import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, expect, it } from "vitest";
import { freePort } from "../../bench/service-process.js";
import { cliEnvironment, repositoryRoot } from "../cli/run-roundtable.js";
import { type FakeModelServer, startOpenAIFake } from "../fakes/openai-server.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { isAlive, waitUntil } from "../tools/wait-until.js";

const loader = pathToFileURL(path.join(repositoryRoot, "node_modules/tsx/dist/loader.mjs")).href;
const token = "7000:takeover";
const person = { id: 515, is_bot: false, first_name: "Ana" };

describePostgres("Telegram long polling with two processes on one PostgreSQL", (serverUrl) => {
  let directory: string;
  let telegram: FakeTelegramApi;
  let model: FakeModelServer;
  let database: { url: string; drop(): Promise<void> };
  const processes: { child: ChildProcess; stderr: string }[] = [];

  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), "roundtable-takeover-"));
    telegram = await FakeTelegramApi.start([{ token, username: "roundtable_bot" }]);
    telegram.addChat({ id: 515, type: "private", first_name: "Ana" });
    model = await startOpenAIFake();
    database = await createPostgresDatabase(serverUrl());
    await writeFile(
      path.join(directory, "roundtable.yaml"),
      [
        "providers:",
        `  openai: { apiKey: sk-test, baseUrl: "${model.baseUrl}" }`,
        "agents:",
        "  - { name: alice, provider: openai, model: gpt-4.1 }",
        "worlds:",
        "  - { name: main, agents: [alice], defaultAgent: alice }",
        "channels:",
        `  telegram: { token: "${token}", apiRoot: "${telegram.apiRoot}", chats: { "*": main } }`,
        "",
      ].join("\n"),
    );
  });

  afterEach(async () => {
    for (const { child } of processes.splice(0)) if (child.pid && isAlive(child.pid)) child.kill("SIGKILL");
    await Promise.all([telegram.close(), model.close()]);
    await database.drop();
    await rm(directory, { recursive: true, force: true });
  });

  async function start(): Promise<{ child: ChildProcess; stderr: string }> {
    // One process (Node with tsx's loader, not the tsx wrapper): SIGKILL must kill the service itself.
    const child = spawn(process.execPath, ["--import", loader, path.join(repositoryRoot, "src/cli/main.ts"), "start"], {
      cwd: directory,
      env: cliEnvironment({
        PORT: String(await freePort()),
        HOST: "127.0.0.1",
        LOG_LEVEL: "info",
        DATABASE_URL: database.url,
      }),
      stdio: ["ignore", "ignore", "pipe"],
    });
    const entry = { child, stderr: "" };
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      entry.stderr += chunk;
    });
    processes.push(entry);
    return entry;
  }

  const polling = (entry: { stderr: string }) => entry.stderr.includes("telegram long polling started");
  const waiting = (entry: { stderr: string }) => entry.stderr.includes("waiting to take over");

  it("only the lock holder polls; when it is killed the other takes over and answers", async () => {
    const first = await start();
    await waitUntil("the first process polls", () => polling(first), 30_000);
    const second = await start();
    await waitUntil("the second process waits for the lock", () => waiting(second), 30_000);
    expect(polling(second)).toBe(false);

    model.script({ type: "reply", text: ["hello from whichever"] });
    first.child.kill("SIGKILL");
    await waitUntil("the second process takes over", () => polling(second), 15_000);
    telegram.userMessage(token, { chatId: 515, from: person, text: "are you there?" });
    await waitUntil(
      "the answer is posted",
      () => telegram.messagesIn(515).some((message) => message.text.includes("hello from whichever")),
      15_000,
    );
    // Never two pollers at once: the fake refuses a second concurrent getUpdates with 409.
    expect(telegram.callsTo("getUpdates").filter((call) => call.errorCode === 409)).toEqual([]);
  });
});
