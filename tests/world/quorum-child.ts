/**
 * A real Roundtable process for the cross-process quorum test: `quorum-child.ts <databaseUrl>`.
 * Its world needs two approvals of shell_cmd (the requester not counting). Driven by stdin lines:
 * `ask` (Ana asks; answers `ASKED <approval id>` once the card waits), `vote <user> <approval>`
 * (answers `VOTED <status> <text as JSON>`), `stop` (closes; answers `STOPPED`).
 */
import { createInterface } from "node:readline";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness } from "./harness.js";

const [databaseUrl] = process.argv.slice(2);
if (!databaseUrl) throw new Error("usage: quorum-child <databaseUrl>");

function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

const chatKey = "telegram::chat-1:";
const alice = new ScriptedProvider((request) => {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: `final: ${last.text.replace(/\s+/g, " ").trim()}` };
  return { text: "Checking.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["quorum"] } }] };
});
const harness = await createHarness({
  databaseUrl,
  keepDatabase: true,
  platform: "telegram",
  agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
  world: {
    approvers: { telegram: ["requester", "olga", "eve"] },
    approvals: { quorum: { shell_cmd: 2 } } as never,
  },
});
report("READY");
for await (const line of createInterface({ input: process.stdin })) {
  const [command, user, approvalId] = line.trim().split(/\s+/);
  if (command === "ask") {
    await harness.say("@alice run it", { user: "ana" });
    await harness.waitFor(async () => (await harness.store.listApprovals({ chatKey, states: ["pending"] })).length > 0);
    const [approval] = await harness.store.listApprovals({ chatKey, states: ["pending"] });
    report(`ASKED ${approval?.id}`);
  } else if (command === "vote") {
    const result = await harness.click(approvalId ?? "", "once", { user: user ?? "" });
    report(`VOTED ${result.status} ${JSON.stringify(result.text)}`);
  } else if (command === "stop") {
    await harness.close();
    report("STOPPED");
    process.exit(0);
  }
}
