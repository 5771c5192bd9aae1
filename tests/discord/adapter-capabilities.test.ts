import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalClick, ClickResult } from "../../src/world/inbound.js";
import { type AdapterHarness, adapterHarness, aliceToken, waitFor } from "./helpers.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";

let h: AdapterHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("what else the Discord adapter offers the world", () => {
  it("a DM is a chat of its own, without a guild; answers come from the bot with the agent's name in bold", async () => {
    h = await adapterHarness();
    const dm = h.fake.addDirectChannel(h.ana);
    h.fake.userMessage({ channelId: dm.id, author: h.ana, content: "hello in private" });
    await waitFor(() => h?.sink.accepted.length === 1);
    expect(h.sink.accepted[0]?.chat).toEqual({ platform: "discord", channel: dm.id });
    const sent = await writerFor(h.adapter).postMessage(
      { platform: "discord", channel: dm.id },
      { author: { kind: "agent", id: "alice", name: "alice" }, text: "hi" },
    );
    expect(h.fake.message(sent.ids[0] ?? "")?.content).toBe("**Alice:** hi");
  });

  it("roles of a member by name (and id), admins marked; none outside a guild", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    const roles = await h.adapter.rolesOf(chat, h.olga.id);
    expect(roles).toContain("Ops");
    expect(roles).not.toContain("admin");
    expect(await h.adapter.rolesOf({ platform: "discord", channel: "123" }, h.olga.id)).toEqual([]);
  });

  it("a private reply is a DM from the bot; message links point into the guild, the channel or thread", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    await h.adapter.replyPrivately(chat, h.eve.id, "You are not a member of this world.");
    const dm = [...h.fake.state.channels.values()].find(
      (channel) => channel.type === 1 && channel.recipients?.[0]?.id === h?.eve.id,
    );
    expect(h.fake.messagesIn(dm?.id ?? "").map((message) => message.content)).toEqual([
      "You are not a member of this world.",
    ]);
    expect(h.adapter.messageLink({ ...chat, thread: "77" }, "99")).toBe(
      `https://discord.com/channels/${h.guildId}/77/99`,
    );
    expect(h.adapter.messageLink({ platform: "discord", channel: "5" }, "6")).toBe(
      "https://discord.com/channels/@me/5/6",
    );
  });

  it("an agent with its own bot token posts as that bot; its echo and its mentions read as the agent", async () => {
    h = await adapterHarness({ agents: [{ name: "alice", token: aliceToken }, { name: "bob" }] }, [
      { token: aliceToken, username: "AliceBot" },
    ]);
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    const sent = await writerFor(h.adapter).postMessage(chat, {
      author: { kind: "agent", id: "alice", name: "alice" },
      text: "mine",
    });
    const posted = h.fake.message(sent.ids[0] ?? "");
    expect(posted?.sentByToken).toBe(aliceToken);
    expect(posted?.content).toBe("mine");
    await waitFor(() => h?.sink.messages.length === 1);
    expect(h.sink.messages[0]).toMatchObject({ ownEcho: true, sender: { displayName: "alice", isBot: true } });
    h.fake.userMessage({ channelId: h.general.id, author: h.ana, content: `<@${h.fake.botUser(aliceToken).id}> hi` });
    await waitFor(() => h?.sink.messages.length === 2);
    expect(h.sink.messages[1]?.text).toBe("@alice hi");
    expect(h.sink.messages[1]?.mentions).toEqual(["alice"]);
  });

  it("a slow world: the press is acknowledged at once, a refusal follows as an ephemeral follow-up", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    const card = await writerFor(h.adapter).postApprovalCard(chat, {
      approvalId: "abc123",
      shortId: "ab12",
      agent: "alice",
      tool: "shell_cmd",
      argumentsJson: '{"command":"ls"}',
      argumentsPreview: '{\n  "command": "ls"\n}',
      reason: "",
      requestedFor: "Ana",
      choices: ["once", "session", "deny"],
      expiresAt: new Date(Date.now() + 60_000),
    });
    h.sink.click = async (click: ApprovalClick): Promise<ClickResult> => {
      h?.sink.clicks.push(click);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return { status: "not-allowed", text: "You are not allowed to decide this approval." };
    };
    const message = h.fake.message(card.ids[0] ?? "");
    if (!message) throw new Error("no card");
    const interaction = h.fake.click({ message, user: h.eve, customId: "rt:abc123:o" });
    await waitFor(() => interaction.ephemeral.length === 1, 5_000);
    expect(interaction.callbacks.map((each) => each.type)).toEqual([6]);
    expect(interaction.ephemeral).toEqual(["You are not allowed to decide this approval."]);
    expect(h.sink.clicks[0]).toMatchObject({ approvalId: "abc123", choice: "once", user: { id: h.eve.id } });
    expect(h.fake.message(message.id)?.editCount).toBe(0);
  });
});
