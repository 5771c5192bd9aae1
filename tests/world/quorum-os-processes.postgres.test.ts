import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, expect, it } from "vitest";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { openTestStore } from "./harness.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// Node itself with tsx's loader (not the tsx CLI, which runs a second process a SIGKILL would not reach).
const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
const child = path.join(root, "tests/world/quorum-child.ts");

/** A quorum-child process, driven line by line: `send` a command and wait for the answer's line. */
function startChild(databaseUrl: string) {
  const process_: ChildProcess = spawn(process.execPath, ["--import", loader, child, databaseUrl], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "warn" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let stderr = "";
  let buffer = "";
  const waiters = new Set<() => void>();
  process_.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  process_.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let index = buffer.indexOf("\n"); index >= 0; index = buffer.indexOf("\n")) {
      lines.push(buffer.slice(0, index));
      buffer = buffer.slice(index + 1);
    }
    for (const waiter of [...waiters]) waiter();
  });
  const exited = new Promise<number | null>((resolve) => process_.on("exit", (code) => resolve(code)));
  const lineFrom = (pattern: RegExp, from: number) =>
    new Promise<string>((resolve, reject) => {
      const look = () => {
        const line = lines.slice(from).find((each) => pattern.test(each));
        if (line === undefined) return;
        waiters.delete(look);
        resolve(line);
      };
      waiters.add(look);
      look();
      void exited.then((code) => reject(new Error(`child exited (${code}) before ${pattern}: ${stderr}`)));
    });
  return {
    ready: lineFrom(/^READY$/, 0),
    send(command: string, answer: RegExp): Promise<string> {
      const from = lines.length;
      process_.stdin?.write(`${command}\n`);
      return lineFrom(answer, from);
    },
    async kill(): Promise<void> {
      process_.kill("SIGKILL");
      await exited;
    },
  };
}

const running: ReturnType<typeof startChild>[] = [];
afterEach(async () => {
  for (const process_ of running.splice(0)) await process_.kill();
});

describePostgres("a quorum decided across two OS processes on one PostgreSQL", (serverUrl) => {
  it("Ana asks through one process; her vote does not count; Olga votes through it, Eve through the other: approved once, run once", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      const one = startChild(database.url);
      running.push(one);
      await one.ready;
      const two = startChild(database.url);
      running.push(two);
      await two.ready;
      const approvalId = (await one.send("ask", /^ASKED /)).slice("ASKED ".length);
      expect(await one.send(`vote ana ${approvalId}`, /^VOTED /)).toMatch(
        /^VOTED not-allowed "Your approval does not count/,
      );
      expect(await one.send(`vote olga ${approvalId}`, /^VOTED /)).toBe(
        'VOTED decided "Counted: 1 of 2: olga. It runs after 1 more approval."',
      );
      expect(await two.send(`vote eve ${approvalId}`, /^VOTED /)).toBe('VOTED decided "Approved once."');

      const { store, close } = await openTestStore(database.url);
      try {
        const deadline = Date.now() + 30_000;
        const finals = async () =>
          (await store.listMessages("telegram::chat-1:")).filter((message) => message.text.startsWith("final:"));
        while ((await finals()).length === 0 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 100));
        expect((await finals()).map((message) => message.text)).toEqual([expect.stringMatching(/quorum/)]);
        expect(await store.getApproval(approvalId)).toMatchObject({ state: "approved", decidedByName: "olga, eve" });
        expect((await store.listApprovalVotes(approvalId)).map((vote) => vote.voterId)).toEqual(["olga", "eve"]);
        const calls = await store.listToolCalls({ chatKey: "telegram::chat-1:" });
        expect((await store.listToolResults(calls.map((call) => call.id))).map((result) => result.kind)).toEqual([
          "ok",
        ]);
      } finally {
        await close();
      }
      await Promise.all([one.send("stop", /^STOPPED$/), two.send("stop", /^STOPPED$/)]);
      running.splice(0);
    } finally {
      await database.drop();
    }
  }, 120_000);
});
