/**
 * A real Roundtable process for the hook-kill test: `node --import tsx hook-kill-child.ts <phase>
 * <databaseUrl> <directory>`. The policy module in `<directory>` prints `HOOK_DECIDING` and hangs
 * on a tool call until `<directory>/release` exists; the test kills the process while it hangs.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness } from "../world/harness.js";

const [phase, databaseUrl, directory] = process.argv.slice(2);
if (!phase || !databaseUrl || !directory) throw new Error("usage: hook-kill-child <phase> <databaseUrl> <directory>");

const module = path.join(directory, "policy.mjs");
writeFileSync(
  module,
  `import { appendFileSync, existsSync } from "node:fs";
export function onEvent(event) {
  if (event.type !== "tool_call") return;
  appendFileSync(${JSON.stringify(path.join(directory, "calls.txt"))}, event.turnId + "\\n");
  if (!existsSync(${JSON.stringify(path.join(directory, "release"))})) {
    process.stdout.write("HOOK_DECIDING\\n");
    return new Promise(() => {});
  }
  return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, approval: "never" })) };
}
`,
);
const runs = path.join(directory, "runs.txt");
const alice = new ScriptedProvider((request) =>
  request.messages.at(-1)?.role === "tool"
    ? { text: "ran it" }
    : {
        text: "Running.",
        toolCalls: [{ name: "shell_cmd", args: { command: "sh", args: ["-c", `echo run >> ${runs}`] } }],
      },
);
const harness = await createHarness({
  databaseUrl,
  keepDatabase: true,
  agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
  hooks: { module, timeout: "60s" },
});
if (phase === "first") {
  await harness.say("@alice run it", { id: "m-1" });
  await new Promise(() => {});
}
await harness.idle();
await harness.waitFor(async () => (await harness.store.listTurns({})).every((turn) => turn.state === "ended"));
await harness.idle();
const calls = await harness.store.listToolCalls({});
const results = await harness.store.listToolResults(calls.map((call) => call.id));
process.stdout.write(`RESULTS ${JSON.stringify(results.map((result) => result.kind))}\n`);
await harness.close();
process.exit(0);
