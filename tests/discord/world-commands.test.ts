import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { mainToken, waitFor } from "./helpers.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("chat commands as Discord application commands", () => {
  it("the seven commands are registered in each guild at start; /agents and /approvals answer ephemerally and start no turn", async () => {
    const alice = new ScriptedProvider(() => ({
      text: "Checking.",
      toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hi"] } }],
    }));
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    const registered = t.fake.applicationCommands.get(`${t.fake.applicationId(mainToken)}:${t.guildId}`) as {
      name: string;
      description: string;
    }[];
    expect(registered.map((command) => command.name)).toEqual([
      "stop",
      "agents",
      "approvals",
      "usage",
      "rules",
      "reset",
      "help",
    ]);
    for (const command of registered) expect(command.description.length).toBeLessThanOrEqual(100);

    const agents = t.fake.slashCommand({ channelId: t.general.id, user: t.ana, name: "agents" });
    await waitFor(() => agents.ephemeral.length === 1);
    expect(agents.callbacks.map((each) => each.type)).toEqual([4]);
    expect(agents.ephemeral[0]).toContain("alice");

    await t.say(t.ana, "@alice run echo");
    const approvals = t.fake.slashCommand({ channelId: t.general.id, user: t.ana, name: "approvals" });
    await waitFor(() => approvals.ephemeral.length === 1);
    expect(approvals.ephemeral[0]).toContain("shell_cmd");
    expect(alice.requests).toHaveLength(1);
    // Nothing was posted for the commands: the chat shows the answer and the card only.
    expect(t.posts().map((post) => post.components.length > 0)).toEqual([false, true]);
  });

  it("/usage answers ephemerally with the person's, the chat's and the world's use: the fake's usage × price", async () => {
    // 1,000 input and 200 output tokens a call at 2 and 10 USD per million: 0.004 USD a call.
    const alice = new ScriptedProvider(() => ({ text: "done", usage: { inputTokens: 1_000, outputTokens: 200 } }));
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: alice }],
      agentConfig: { alice: { price: { input: 2, output: 10 } } },
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perPerson: { costPerDay: 1 } } },
    });
    await t.say(t.ana, "one");
    await t.say(t.ana, "two");
    await waitFor(() => alice.requests.length === 2 && t?.posts().length === 2);
    const usage = t.fake.slashCommand({ channelId: t.general.id, user: t.ana, name: "usage" });
    await waitFor(() => usage.ephemeral.length === 1);
    const lines = (usage.ephemeral[0] ?? "").split("\n");
    expect(lines[0]).toBe("Model usage (UTC):");
    expect(lines[1]).toMatch(
      /^You \(.+\), today \(\d{4}-\d\d-\d\d\): 0\.0080 USD, 2400 tokens \(perPerson\.costPerDay: 0\.0080 USD of 1\.00 USD\)$/,
    );
    expect(lines[3]).toMatch(/^This chat, today \(.+\): 0\.0080 USD, 2400 tokens \(no cap\)$/);
    expect(lines[5]).toMatch(/^This world, today \(.+\): 0\.0080 USD, 2400 tokens \(no cap\)$/);
    expect(t.posts()).toHaveLength(2);
  });
});
