import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { SlowProvider } from "../fakes/slow-provider.js";
import { ana, channel, eve, modes, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe.each(modes)("chat commands through Slack's /roundtable (%s)", (mode) => {
  it("/roundtable stop from the channel ends a slowly streaming answer in a thread; the answer keeps its partial text", async () => {
    const alice = new SlowProvider();
    t = await worldOnSlack({ mode, agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    const { message: root } = await t.fake.userMessage({ channel, user: ana, text: "write a long essay" });
    await alice.streaming;
    await t.world.waitFor(() => (t?.replies(root.ts).length ?? 0) > 0, 5_000);

    // Eve did not ask and is no approver: told privately, nothing stops.
    expect((await t.fake.slashCommand({ user: eve, channel, text: "stop" })).status).toBe(200);
    await t.world.waitFor(() => t?.fake.ephemerals.some((each) => each.user === eve) ?? false);
    expect(t.fake.ephemerals.find((each) => each.user === eve)?.text).toBe(
      "Only the person who asked or an approver may stop alice.",
    );
    expect(alice.endings).toEqual([]);

    expect((await t.fake.slashCommand({ user: ana, channel, text: "stop" })).status).toBe(200);
    await t.world.waitFor(() => alice.endings.length > 0, 5_000);
    await t.settle();
    expect(alice.endings).toEqual(["aborted"]);
    const [answer, ...rest] = t.replies(root.ts);
    expect(rest).toHaveLength(0);
    expect(answer?.text).toMatch(/^Here is the first part of a long answer\n\n\(stopped by \S+\)$/);
    expect(t.fake.ephemerals.find((each) => each.user === ana)?.text).toMatch(/^Stopped alice \(by \S+\)\.$/);
    const [turn] = await t.world.store.listTurns({ chatKey: threadKey(root.ts) });
    expect(turn).toMatchObject({ state: "ended", endReason: "stopped" });
    expect(alice.requests).toHaveLength(1);
  });

  it("the Stop button on the answer being written stops it; the settled answer has no buttons", async () => {
    const alice = new SlowProvider();
    t = await worldOnSlack({ mode, agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    const { message: root } = await t.fake.userMessage({ channel, user: ana, text: "write a long essay" });
    await alice.streaming;
    await t.world.waitFor(
      () => JSON.stringify(t?.replies(root.ts)[0]?.blocks ?? []).includes("roundtable_stop"),
      5_000,
    );
    const live = t.replies(root.ts)[0];
    expect(live?.blocks?.at(-1)).toMatchObject({
      type: "actions",
      elements: [{ action_id: "roundtable_stop", value: "alice" }],
    });

    const delivery = await t.fake.press({
      user: ana,
      channel,
      messageTs: live?.ts ?? "",
      actionId: "roundtable_stop",
      value: "alice",
    });
    expect(delivery.status).toBe(200);
    await t.world.waitFor(() => alice.endings.length > 0, 5_000);
    await t.settle();
    expect(alice.endings).toEqual(["aborted"]);
    const [answer, ...rest] = t.replies(root.ts);
    expect(rest).toHaveLength(0);
    expect(answer?.text).toMatch(/\n\n\(stopped by \S+\)$/);
    expect(answer?.blocks ?? []).toEqual([]);
    expect(t.fake.ephemerals.find((each) => each.user === ana)?.text).toMatch(/^Stopped alice \(by \S+\)\.$/);
  });

  it("/roundtable approvals lists the pending approvals of the channel's threads; /roundtable help answers privately", async () => {
    const alice = new ScriptedProvider([{ text: "", toolCalls: [{ name: "shell_cmd", args: { command: "ls" } }] }]);
    t = await worldOnSlack({
      mode,
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice" },
    });
    const root = await t.say(ana, "list the files");
    expect(t.cards(root.ts)).toHaveLength(1);

    await t.fake.slashCommand({ user: ana, channel, text: "approvals" });
    await t.fake.slashCommand({ user: ana, channel, text: "help" });
    await t.world.waitFor(() => (t?.fake.ephemerals.length ?? 0) >= 2);
    const [listing, help] = t.fake.ephemerals.map((each) => each.text);
    expect(listing).toMatch(/^Pending approvals \(1, oldest first\):\n1\. alice wants shell_cmd `\{"command":"ls"\}`/);
    expect(help).toContain("/approvals");
    // Listing closes nothing.
    expect((await t.world.store.listApprovals({ chatKey: threadKey(root.ts) }))[0]?.state).toBe("pending");

    // /roundtable reset concerns the channel and its threads: the thread's session ends, its card closes.
    await t.fake.slashCommand({ user: ana, channel, text: "reset" });
    await t.world.waitFor(() => (t?.fake.ephemerals.length ?? 0) >= 3);
    await t.settle();
    expect(t.fake.ephemerals[2]?.text).toBe("Reset this channel and its 1 thread.");
    expect((await t.world.store.listApprovals({ chatKey: threadKey(root.ts) }))[0]?.state).toBe("skipped");
    expect((await t.world.store.getChat(threadKey(root.ts)))?.sessionEpoch).toBe(1);
  });
});
