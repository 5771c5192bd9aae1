import { afterEach, describe, expect, it } from "vitest";
import { chatKey } from "../../src/world/chat-ref.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A model that asks to run `whoami`, then answers with what the tool said. */
function whoami() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.split("\n")[0]}` };
    return { text: "Checking.", toolCalls: [{ name: "shell_cmd", args: { command: "whoami" } }] };
  });
}

describe("who may approve", () => {
  it("a stranger cannot approve their own call when approvers are listed, and is told why", async () => {
    harness = await createHarness({
      agents: [{ name: "alice", provider: whoami(), tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { approvers: { telegram: ["111"] } },
    });
    await harness.say("@alice who are you running as?", { user: "666" });
    await harness.idle();
    const [card] = harness.channel.cards();
    expect(card?.card.tool).toBe("shell_cmd");
    const refused = await harness.click(card?.card.approvalId ?? "", "once", { user: "666" });
    expect(refused).toEqual({
      status: "not-allowed",
      text: "You are not allowed to decide this approval: only this world's approvers may.",
    });
    expect(await harness.store.getApproval(card?.card.approvalId ?? "")).toMatchObject({ state: "pending" });
    expect(harness.logs()).toContain("click by someone not allowed to decide refused");
    const decided = await harness.click(card?.card.approvalId ?? "", "once", { user: "111" });
    expect(decided.status).toBe("decided");
  });

  it("with no list only the requester decides; `requester` in a list adds them to those listed", async () => {
    harness = await createHarness({
      agents: [{ name: "alice", provider: whoami(), tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { approvers: { discord: ["role:Ops"], telegram: ["requester", "role:ops"] } },
      channelsConfig: { telegram: { chats: { "chat-1": "main" } } },
    });
    await harness.say("@alice go", { user: "ana" });
    await harness.idle();
    const [card] = harness.channel.cards();
    const id = card?.card.approvalId ?? "";
    expect((await harness.click(id, "once", { user: "bob" })).status).toBe("not-allowed");
    expect((await harness.click(id, "deny", { user: "carl", roles: ["OPS"] })).status).toBe("decided");
  });

  it("roles and admins count for nobody in a chat reached only through the catch-all; ids still do", async () => {
    harness = await createHarness({
      agents: [{ name: "alice", provider: whoami(), tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { approvers: { telegram: ["admins", "role:ops", "111"] }, members: { telegram: ["admins", "111"] } },
      channelsConfig: { telegram: { chats: { "chat-1": "main", "*": "main" } } },
    });
    // The stranger's own group: they are its admin and hold a role named ops, and talk to no avail.
    await harness.say("@alice go", { user: "666", channel: "their-group", roles: ["admin", "ops"] });
    await harness.idle();
    expect(harness.channel.cards()).toHaveLength(0);
    // A listed id talks there; the stranger, admin of that group, still cannot decide.
    await harness.say("@alice go", { user: "111", channel: "their-group" });
    await harness.idle();
    const [card] = harness.channel.cards();
    const id = card?.card.approvalId ?? "";
    const stranger = await harness.click(id, "once", { user: "666", roles: ["admin", "ops"], channel: "their-group" });
    expect(stranger.status).toBe("not-allowed");
    expect(await harness.store.getApproval(id)).toMatchObject({ state: "pending" });
    // In the chat bound by id the same roles count.
    await harness.say("@alice go", { user: "777", channel: "chat-1", roles: ["admin"] });
    await harness.idle();
    const bound = harness.channel.cards().at(-1)?.card.approvalId ?? "";
    expect(bound).not.toBe(id);
    const admin = await harness.click(bound, "once", { user: "888", roles: ["ops"], channel: "chat-1" });
    expect(admin.status).toBe("decided");
  });

  it("the default is the requester alone: another person is refused with the reason", async () => {
    harness = await createHarness({
      agents: [{ name: "alice", provider: whoami(), tools: ["shell_cmd"] }],
      platform: "telegram",
    });
    await harness.say("@alice go", { user: "ana" });
    await harness.idle();
    const id = harness.channel.cards()[0]?.card.approvalId ?? "";
    expect(await harness.click(id, "once", { user: "bob" })).toEqual({
      status: "not-allowed",
      text: "You are not allowed to decide this approval: only the person who asked may.",
    });
    expect((await harness.click(id, "once", { user: "ana" })).status).toBe("decided");
  });

  it("a click after the deadline is refused as expired before the expiry step ran; the expiry is recorded", async () => {
    let now = Date.now();
    const model = whoami();
    harness = await createHarness({
      agents: [{ name: "alice", provider: model, tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { approvalTimeout: "30m" },
      worldClock: () => new Date(now),
    });
    await harness.say("@alice go", { user: "ana" });
    await harness.idle();
    const [card] = harness.channel.cards();
    const id = card?.card.approvalId ?? "";
    now += 31 * 60_000; // the queue's own expiry step is still 30 real minutes away
    expect(await harness.click(id, "once", { user: "ana" })).toEqual({
      status: "expired",
      text: "This approval has expired; nothing was decided.",
    });
    await harness.idle();
    expect(await harness.store.getApproval(id)).toMatchObject({ state: "expired", decidedByName: "roundtable" });
    const [update] = harness.channel.updates();
    expect(update?.outcome).toMatchObject({ state: "expired" });
    const approval = await harness.store.getApproval(id);
    expect((await harness.store.getToolResult(approval?.toolCallId ?? ""))?.kind).toBe("expired");
    // The turn went on with the expiry; the tool never ran.
    expect(harness.channel.messages().map((message) => message.text)).toEqual([
      "Checking.",
      expect.stringContaining("tool said: expired"),
    ]);
    expect((await harness.click(id, "once", { user: "ana" })).status).toBe("expired");
  });
});

describe("/reset", () => {
  it("closes pending cards only for someone who may decide them; others are told why and nothing changes", async () => {
    const model = whoami();
    harness = await createHarness({
      agents: [{ name: "alice", provider: model, tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { approvers: { telegram: ["requester", "boss"] } },
    });
    await harness.say("@alice go", { user: "ana" });
    await harness.idle();
    const id = harness.channel.cards()[0]?.card.approvalId ?? "";
    expect(await harness.say("/reset", { user: "eve" })).toEqual({ status: "ignored", reason: "reset refused" });
    await harness.idle();
    expect(await harness.store.getApproval(id)).toMatchObject({ state: "pending" });
    expect(harness.channel.messages().at(-1)?.text).toBe(
      "eve: Only the person who asked or an approver may reset this chat while its approvals are pending.",
    );
    expect(await harness.say("/reset", { user: "boss" })).toEqual({ status: "ignored", reason: "chat reset" });
    await harness.idle();
    expect(await harness.store.getApproval(id)).toMatchObject({ state: "skipped" });
    expect(harness.channel.updates()[0]?.outcome).toMatchObject({ state: "skipped", note: "chat reset by boss" });
  });
});

describe("who may talk", () => {
  it("a non-member's message is stored but starts no turn; they are told once an hour", async () => {
    const model = whoami();
    harness = await createHarness({
      agents: [{ name: "alice", provider: model, tools: ["shell_cmd"] }],
      platform: "telegram",
      world: { members: { telegram: ["111", "role:staff"] } },
    });
    const result = await harness.say("@alice whoami please", { user: "666" });
    expect(result).toEqual({ status: "ignored", reason: "sender is not a member" });
    await harness.say("@alice again", { user: "666" });
    await harness.idle();
    expect(model.requests).toHaveLength(0);
    const notices = harness.channel.messages().map((message) => message.text);
    expect(notices).toEqual(["You are not a member of this chat's world, so the agents do not answer your messages."]);
    const stored = await harness.store.listMessages(chatKey(harness.chat()));
    expect(stored.filter((message) => message.author.id === "666")).toHaveLength(2);
    expect(harness.logs()).toContain("message from a non-member stored, not routed");

    await harness.say("@alice hello", { user: "111" });
    await harness.idle();
    expect(model.requests).toHaveLength(1);
  });
});
