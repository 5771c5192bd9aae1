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
  it("the five commands are registered in each guild at start; /agents and /approvals answer ephemerally and start no turn", async () => {
    const alice = new ScriptedProvider(() => ({
      text: "Checking.",
      toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hi"] } }],
    }));
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    const registered = t.fake.applicationCommands.get(`${t.fake.applicationId(mainToken)}:${t.guildId}`) as {
      name: string;
      description: string;
    }[];
    expect(registered.map((command) => command.name)).toEqual(["stop", "agents", "approvals", "reset", "help"]);
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
});
