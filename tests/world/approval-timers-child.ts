/**
 * A real Roundtable process for the approval-timer kill test:
 * `approval-timers-child.ts <phase> <databaseUrl>`. One line per milestone on stdout; the test
 * kills it with SIGKILL where it wants. Every phase runs the same world: Boss approves, a
 * reminder 2.5 s after the card, an escalation to 333 at 5 s, the card expiring after 10 minutes.
 */
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

const [phase, databaseUrl] = process.argv.slice(2);
if (!phase || !databaseUrl) throw new Error("usage: approval-timers-child <phase> <databaseUrl>");

function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

const never = new Promise<void>(() => {});

function open(url: string): Promise<Harness> {
  const alice = new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `final: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Checking.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["timers"] } }] };
  });
  return createHarness({
    databaseUrl: url,
    agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
    platform: "telegram",
    keepDatabase: true,
    world: {
      approvers: { telegram: ["222"] },
      approvalTimeout: "10m",
      approvals: { remind: "4s", escalate: { after: "8s", to: { telegram: ["333"] } } } as never,
    },
  });
}

/** The world's notices this process posted that start with `prefix`. */
function posted(harness: Harness, prefix: string): string[] {
  return harness.channel
    .messages()
    .map((message) => message.text)
    .filter((text) => text.startsWith(prefix));
}

async function main(url: string): Promise<void> {
  const harness = await open(url);
  switch (phase) {
    case "park": {
      await harness.say("@alice run it", { id: "m-1", user: "ana" });
      await harness.idle();
      report(`PARKED ${harness.channel.cards()[0]?.card.approvalId}`);
      await never;
      return;
    }
    case "until-reminded": {
      await harness.waitFor(() => posted(harness, "⏰").length > 0, 30_000);
      // Its delivery recorded too: a kill after this line re-shows nothing.
      await harness.idle();
      report(`REMINDED ${JSON.stringify([...posted(harness, "⏰"), ...posted(harness, "⏫")])}`);
      await never;
      return;
    }
    case "until-escalated": {
      // Escalated by this process, or by the one before (then only its delivery may be left here).
      const [approval] = await harness.store.listApprovals({});
      await harness.waitFor(
        async () => (await harness.store.getMessage(`escalate:${approval?.id}`)) !== undefined,
        30_000,
      );
      await harness.idle();
      const result = await harness.click(approval?.id ?? "", "once", { user: "333" });
      await harness.waitFor(() => harness.channel.messages().some((message) => message.text.startsWith("final:")));
      report(`POSTED ${JSON.stringify([...posted(harness, "⏰"), ...posted(harness, "⏫")])}`);
      report(`CLICK ${result.status}`);
      await harness.close();
      return;
    }
    default:
      throw new Error(`unknown phase ${phase}`);
  }
}

main(databaseUrl).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
