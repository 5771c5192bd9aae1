import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { SlowProvider } from "../fakes/slow-provider.js";
import { waitFor } from "./helpers.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("/stop as a Discord application command", () => {
  it("ends a slowly streaming answer: the message keeps the partial text, ending '(stopped by …)'; no further model call", async () => {
    const alice = new SlowProvider();
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    t.fake.userMessage({ channelId: t.general.id, author: t.ana, content: "write a long essay" });
    await alice.streaming;
    await waitFor(() => (t?.posts().length ?? 0) > 0);

    // Eve did not ask and is no approver: an ephemeral refusal, nothing stops.
    const refused = t.fake.slashCommand({ channelId: t.general.id, user: t.eve, name: "stop" });
    await waitFor(() => refused.ephemeral.length === 1);
    expect(refused.ephemeral[0]).toBe("Only the person who asked or an approver may stop alice.");
    expect(alice.endings).toEqual([]);

    const stop = t.fake.slashCommand({ channelId: t.general.id, user: t.ana, name: "stop" });
    await waitFor(() => stop.ephemeral.length === 1);
    expect(stop.ephemeral[0]).toMatch(/^Stopped alice \(by .+\)\.$/);
    await waitFor(() => alice.endings.length > 0);
    await t.world.idle();
    expect(alice.endings).toEqual(["aborted"]);
    const answers = t.posts();
    expect(answers).toHaveLength(1);
    expect(answers[0]?.content).toMatch(/Here is the first part of a long answer\n\n\(stopped by .+\)$/);
    expect(answers[0]?.components).toEqual([]);
    const [turn] = await t.world.store.listTurns({ chatKey: t.chatKeyOf() });
    expect(turn).toMatchObject({ state: "ended", endReason: "stopped" });
    expect(alice.requests).toHaveLength(1);
  });

  it("the Stop button on the answer being written does the same", async () => {
    const alice = new SlowProvider();
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    t.fake.userMessage({ channelId: t.general.id, author: t.ana, content: "write a long essay" });
    await alice.streaming;
    await waitFor(() => JSON.stringify(t?.posts()[0]?.components ?? []).includes("rt-stop:alice"));
    const answer = t.posts()[0];
    expect(answer).toBeDefined();

    const press = await t.press(t.ana, answer as NonNullable<typeof answer>, "rt-stop:alice");
    expect(press.ephemeral[0]).toMatch(/^Stopped alice \(by .+\)\.$/);
    await waitFor(() => alice.endings.length > 0);
    await t.world.idle();
    expect(alice.endings).toEqual(["aborted"]);
    const settled = t.fake.message(answer?.id ?? "");
    expect(settled?.content).toMatch(/\(stopped by .+\)$/);
    expect(settled?.components).toEqual([]);
  });

  it("a parked approval: /stop closes its card as skipped, saying who stopped it", async () => {
    const alice = new ScriptedProvider([{ text: "", toolCalls: [{ name: "shell_cmd", args: { command: "ls" } }] }]);
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await t.say(t.ana, "@alice list files");
    const card = t.posts().find((post) => post.components.length > 0);
    expect(card).toBeDefined();

    const stop = t.fake.slashCommand({ channelId: t.general.id, user: t.ana, name: "stop" });
    await waitFor(() => stop.ephemeral.length === 1);
    await t.world.idle();
    const closed = t.fake.message(card?.id ?? "");
    expect(JSON.stringify(closed)).toContain("stopped by");
    expect(closed?.components ?? []).toHaveLength(0);
    const [approval] = await t.world.store.listApprovals({ chatKey: t.chatKeyOf() });
    expect(approval?.state).toBe("skipped");
  });
});
