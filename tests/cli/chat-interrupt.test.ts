import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startOpenAIFake } from "../fakes/openai-server.js";
import { isRecordedAlive, readRecordedPid, recordPid } from "../tools/recorded-pid.js";
import { spawnBundle } from "./run-bundle.js";
import { collect } from "./run-roundtable.js";

// Ctrl-C on `roundtable chat` stops it as SIGTERM stops `start`: a running tool (its process
// group) is ended, not left running after the chat is gone.

let directory: string;
let model: FakeModelServer | undefined;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-chat-int-"));
});

afterEach(async () => {
  await model?.close();
  model = undefined;
  await rm(directory, { recursive: true, force: true });
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("Ctrl-C on roundtable chat", () => {
  it("ends the running tool; the next run records it as interrupted and the turn goes on", async () => {
    const workdir = path.join(directory, "work");
    await writeFile(
      path.join(directory, "roundtable.yaml"),
      `providers:
  openai: { apiKey: \${OPENAI_API_KEY}, baseUrl: \${OPENAI_BASE_URL} }
agents:
  - { name: alice, provider: openai, model: gpt-4.1, tools: [shell_cmd] }
worlds:
  - { name: team, agents: [alice], defaultAgent: alice, workdir: ${JSON.stringify(workdir)} }
tools:
  approval: { shell_cmd: never }
`,
    );
    model = await startOpenAIFake({
      apiKey: "sk-chat",
      steps: [
        {
          type: "reply",
          toolCalls: [
            {
              id: "call_1",
              name: "shell_cmd",
              argumentChunks: [
                JSON.stringify({ command: "sh", args: ["-c", `${recordPid("$$", "tool.pid")}; exec sleep 30`] }),
              ],
            },
          ],
        },
        { type: "reply", text: ["The command was interrupted."] },
      ],
    });
    const env = {
      DATABASE_URL: `file:${path.join(directory, "data", "roundtable.db")}`,
      OPENAI_API_KEY: "sk-chat",
      OPENAI_BASE_URL: model.baseUrl,
    };
    const chat = spawnBundle(["chat", "--as", "ana"], { cwd: directory, env });
    const finished = collect(chat);
    // stdin stays open: the person is still at the terminal.
    chat.stdin?.write("@alice wait half a minute\n");
    const pidFile = path.join(workdir, "tool.pid");
    await until(() => readRecordedPid(pidFile) !== undefined);
    const tool = readRecordedPid(pidFile);
    if (!tool) throw new Error("unreachable");
    expect(isRecordedAlive(tool)).toBe(true);

    chat.kill("SIGINT");
    const run = await finished;
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain("roundtable: stopping");
    expect(isRecordedAlive(tool)).toBe(false);

    // The next run: the cut step runs again (after the queue's retry delay) and records the call
    // as interrupted, which it was; the model then answers.
    const again = spawnBundle(["chat", "--as", "ana"], { cwd: directory, env });
    const next = collect(again);
    let printed = "";
    again.stdout?.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
    });
    await until(() => printed.includes("alice: The command was interrupted.\n"));
    again.stdin?.end();
    expect((await next).code).toBe(0);
    expect(JSON.stringify(model.requests[1]?.body)).toContain("it was not run again");
    expect(model.requests).toHaveLength(2);
  });
});
