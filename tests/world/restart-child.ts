/**
 * A real Roundtable process for the restart tests: `tsx restart-child.ts <phase> <databaseUrl> [arg]`.
 * Prints one line per milestone on stdout; the test kills it with SIGKILL where it wants.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness } from "./harness.js";

const [phase, databaseUrlArgument, argument] = process.argv.slice(2);
if (!phase || !databaseUrlArgument) throw new Error("usage: restart-child <phase> <databaseUrl> [arg]");
const databaseUrl: string = databaseUrlArgument;

function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

const never = new Promise<void>(() => {});

async function main(): Promise<void> {
  switch (phase) {
    case "hang-in-provider": {
      const alice = new ScriptedProvider(() => {
        report("IN_PROVIDER");
        return { text: "never sent", hold: never };
      });
      const harness = await createHarness({
        databaseUrl,
        agents: [{ name: "alice", provider: alice }],
        keepDatabase: true,
      });
      await harness.say("@alice hello", { id: "m-1" });
      await never;
      return;
    }
    case "park-on-approval": {
      const alice = new ScriptedProvider([
        { text: "Checking.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["after-restart"] } }] },
      ]);
      const harness = await createHarness({
        databaseUrl,
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        platform: "telegram",
        keepDatabase: true,
      });
      await harness.say("@alice run it", { id: "m-1", user: "ana" });
      await harness.idle();
      const [card] = harness.channel.cards();
      report(`PARKED ${card?.card.approvalId}`);
      await never;
      return;
    }
    case "kill-in-tool": {
      const alice = new ScriptedProvider([
        { toolCalls: [{ name: "shell_cmd", args: { command: "sleep", args: ["30"] } }] },
      ]);
      const harness = await createHarness({
        databaseUrl,
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        tools: { approval: { shell_cmd: "never" } },
        keepDatabase: true,
      });
      await harness.say("@alice wait a bit", { id: "m-1" });
      await harness.waitFor(async () =>
        (await harness.store.listToolCalls({})).some((call) => call.state === "running"),
      );
      report("IN_TOOL");
      await never;
      return;
    }
    case "kill-in-tool-outbox": {
      // The tool leaves a file in outbox/ and is still running when the process dies.
      const workdir = argument ?? "";
      const write = "mkdir -p outbox && printf 'a,b\\n1,2\\n' > outbox/report.csv && sleep 30";
      const alice = new ScriptedProvider([
        { toolCalls: [{ name: "shell_cmd", args: { command: "sh", args: ["-c", write] } }] },
      ]);
      const harness = await createHarness({
        databaseUrl,
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        tools: { approval: { shell_cmd: "never" } },
        world: { workdir },
        keepDatabase: true,
      });
      await harness.say("@alice write the report", { id: "m-1" });
      await harness.waitFor(
        async () =>
          // The call's own outbox (outbox/.call-<id>/ on disk, its outbox/ inside the sandbox).
          existsSync(path.join(workdir, "outbox")) &&
          readdirSync(path.join(workdir, "outbox")).some((entry) =>
            existsSync(path.join(workdir, "outbox", entry, "report.csv")),
          ) &&
          (await harness.store.listToolCalls({})).some((call) => call.state === "running"),
      );
      report("IN_TOOL");
      await never;
      return;
    }
    case "resume-outbox": {
      const alice = new ScriptedProvider((request) => {
        const last = request.messages.at(-1);
        return { text: `final: ${last?.text.replace(/\s+/g, " ").trim()}` };
      });
      const harness = await createHarness({
        databaseUrl,
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        world: { workdir: argument ?? "" },
        keepDatabase: true,
      });
      await harness.idle();
      report(`POSTED ${JSON.stringify(harness.channel.messages().map((message) => message.text))}`);
      await harness.close();
      return;
    }
    case "resume": {
      const alice = new ScriptedProvider((request) => {
        const last = request.messages.at(-1);
        if (last?.role === "tool") return { text: `final: ${last.text.replace(/\s+/g, " ").trim()}` };
        return { text: "final answer" };
      });
      const harness = await createHarness({
        databaseUrl,
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        platform: argument === "click" ? "telegram" : "console",
        keepDatabase: true,
      });
      await harness.idle();
      if (argument === "click") {
        const approvalId = process.argv[5] ?? "";
        const result = await harness.click(approvalId, "once", { user: "ana" });
        report(`CLICK ${result.status}`);
        await harness.idle();
      }
      report(`POSTED ${JSON.stringify(harness.channel.messages().map((message) => message.text))}`);
      report(`CALLS ${alice.requests.length}`);
      await harness.close();
      return;
    }
    default:
      throw new Error(`unknown phase ${phase}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
