import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { SlackStoredMessage } from "../fakes/slack-api.js";
import { ana, channel, eve, modes, olga, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A model that runs `echo hello` once (with `padding` in the arguments), then says what the tool said. */
function echoOnce(padding = "") {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    return {
      text: "Let me check.",
      toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello", ...(padding ? [padding] : [])] } }],
    };
  });
}

function actionsOf(card: SlackStoredMessage) {
  return (card.blocks ?? []).filter((block) => (block as { type?: string }).type === "actions");
}

describe.each(modes)("an approval in a Slack thread through the world engine (%s)", (mode) => {
  it("in a channel reached only through the catch-all a user group counts for nobody: the group's member is refused, nothing runs", async () => {
    const alice = echoOnce();
    t = await worldOnSlack({
      mode,
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice", approvers: { slack: ["role:ops"] } },
      chats: { "*": "main" },
    });
    const root = await t.say(ana, "run id");
    const [card] = t.cards(root.ts);
    if (!card) throw new Error("no card");
    await t.press(olga, card, /Approve once/);
    expect(t.fake.ephemerals.map((each) => [each.user, each.text])).toEqual([
      [olga, expect.stringMatching(/^You are not allowed to decide/)],
    ]);
    const [approval] = await t.world.store.listApprovals({ chatKey: threadKey(root.ts) });
    expect(approval?.state).toBe("pending");
    expect(alice.requests).toHaveLength(1);
  });

  it("card with three buttons; a stranger's click gets an ephemeral refusal and changes nothing; an approver's click updates the card, runs the tool, posts the answer", async () => {
    const alice = echoOnce();
    t = await worldOnSlack({
      mode,
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice", approvers: { slack: ["U9BOSS", "role:ops"] } },
      chats: { [channel]: "main" },
    });
    const root = await t.say(ana, "run echo");
    const [card] = t.cards(root.ts);
    expect(card).toBeDefined();
    if (!card) return;
    expect(card.text).toBe("alice wants to run shell_cmd");
    expect(card.username).toBeUndefined(); // cards come from the app itself
    const buttons = (actionsOf(card)[0] as { elements: { text: { text: string }; value: string; style?: string }[] })
      .elements;
    expect(buttons.map((button) => [button.text.text, button.style])).toEqual([
      ["Approve once", "primary"],
      ["For session", undefined],
      ["Deny", "danger"],
      ["Deny with reason…", undefined],
    ]);
    const [approval] = await t.world.store.listApprovals({ chatKey: threadKey(root.ts) });
    expect(approval?.state).toBe("pending");
    // The buttons carry the opaque id and the choice, nothing else.
    expect(buttons.map((button) => button.value)).toEqual(
      ["once", "session", "deny", "reason"].map((choice) => `${approval?.id}|${choice}`),
    );

    // Eve is neither the person who asked nor an approver.
    await t.press(eve, card, /Approve once/);
    expect(t.fake.ephemerals).toEqual([
      {
        channel: card.channel,
        user: eve,
        thread_ts: root.ts,
        text: expect.stringMatching(/^You are not allowed to decide/),
      },
    ]);
    expect(card.updateCount).toBe(0);
    expect((await t.world.store.getApproval(approval?.id ?? ""))?.state).toBe("pending");
    expect(alice.requests).toHaveLength(1);

    // Olga decides through the `ops` user group.
    await t.press(olga, card, /Approve once/);
    expect(card.updateCount).toBe(1);
    expect(actionsOf(card)).toHaveLength(0);
    expect(JSON.stringify(card.blocks)).toContain("Approved once by Olga");
    expect(await t.world.store.getApproval(approval?.id ?? "")).toMatchObject({
      state: "approved",
      decidedByName: "Olga",
    });
    // The approver is told privately what the click did; the chat shows the card's outcome.
    expect(t.fake.ephemerals.map((each) => [each.user, each.text])).toEqual([
      [eve, expect.stringMatching(/^You are not allowed/)],
      [olga, expect.stringMatching(/^Approved once/)],
    ]);
    expect(alice.requests).toHaveLength(2);
    const texts = t.replies(root.ts).map((message) => message.text);
    expect(texts).toHaveLength(3);
    expect(texts[2]).toMatch(/^tool said: exit code: 0 .*hello/);
  });

  it("arguments too long for the card are attached in full as a snippet file", async () => {
    const padding = "x".repeat(4000);
    t = await worldOnSlack({
      mode,
      agents: [{ name: "alice", provider: echoOnce(padding), tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice" },
    });
    const root = await t.say(ana, "run echo");
    const [card] = t.cards(root.ts);
    expect(JSON.stringify(card?.blocks)).toMatch(/The arguments are 4,0\d\d characters long/);
    expect(t.fake.files).toHaveLength(1);
    const file = t.fake.files[0];
    expect(file).toMatchObject({ channel: card?.channel, thread_ts: root.ts });
    expect(JSON.parse(file?.content ?? "")).toEqual({ command: "echo", args: ["hello", padding] });
  });
});
