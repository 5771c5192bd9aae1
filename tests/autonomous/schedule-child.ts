/**
 * A real Roundtable process running a minute schedule, for the schedule tests:
 * `schedule-child.ts <phase> <databaseUrl>`. Its world clock is the test's: each stdin line
 * `tick <ISO time>` sets it and runs the scheduler once, then answers `TICKED` when the world
 * is idle; `stop` closes it and answers `STOPPED <model requests>`. Phases: `answer` (the model
 * answers), `hang` (the model never answers: the test kills the process there).
 */
import { createInterface } from "node:readline";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness } from "../world/harness.js";

const [phase, databaseUrl, start] = process.argv.slice(2);
if (!phase || !databaseUrl) throw new Error("usage: schedule-child <answer|hang> <databaseUrl> [ISO start]");

function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

let now = Date.parse(start ?? "2026-06-01T09:00:30Z");
const never = new Promise<void>(() => {});
const bob = new ScriptedProvider((request) => {
  if (phase === "hang") {
    report("IN_PROVIDER");
    return { text: "never sent", hold: never };
  }
  return { text: `summary for ${request.messages.at(-1)?.text ?? ""}` };
});
const harness = await createHarness({
  databaseUrl,
  keepDatabase: true,
  agents: [{ name: "bob", provider: bob }],
  worldClock: () => new Date(now),
  autonomous: {
    schedules: [
      {
        name: "standup",
        world: "main",
        chat: { platform: "console", id: "ops" },
        agent: "bob",
        cron: "* * * * *",
        prompt: "Summarise.",
      },
    ],
  },
});
await harness.idle();
report("READY");
for await (const line of createInterface({ input: process.stdin })) {
  const [command, argument] = line.trim().split(/\s+/);
  if (command === "tick") {
    now = Date.parse(argument ?? "");
    await harness.roundtable.scheduler.tick();
    if (phase !== "hang") await harness.idle();
    report("TICKED");
  } else if (command === "stop") {
    await harness.idle();
    await harness.close();
    report(`STOPPED ${bob.requests.length}`);
    process.exit(0);
  }
}
