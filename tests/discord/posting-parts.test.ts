import { afterEach, describe, expect, it } from "vitest";
import { renderText } from "../../channels/discord/render.js";
import { type AdapterHarness, adapterHarness } from "./helpers.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";

let h: AdapterHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const bob = { kind: "agent" as const, id: "bob", name: "bob" };

/** A text Discord shows in at least three messages (2,000 characters each). */
function longAnswer(): string {
  return ["first", "second", "third", "fourth"].map((word) => `${word} `.repeat(300).trim()).join("\n\n");
}

describe("a long answer on Discord, part by part", () => {
  it("records each part before posting the next, so a retry after a refusal between parts edits them instead of posting them again", async () => {
    h = await adapterHarness();
    const harness = h;
    const chat = { platform: "discord" as const, workspace: harness.guildId, channel: harness.general.id };
    const text = longAnswer();
    const recorded: string[][] = [];
    const observer = {
      posted: async (sent: { ids: string[] }) => {
        recorded.push(sent.ids);
        // Discord refuses the post that follows the first recorded part.
        if (recorded.length === 1) harness.fake.failNext("POST", /^\/webhooks\//, 400, 50035, "Invalid Form Body");
      },
    };
    await expect(writerFor(harness.adapter).postMessage(chat, { author: bob, text }, observer)).rejects.toThrow();
    expect(recorded).toEqual([[expect.any(String)]]);
    const first = recorded[0] ?? [];
    expect(harness.fake.messagesIn(harness.general.id)).toHaveLength(1);

    // The retry (what the world does with that record) edits the first part and posts the rest.
    const sent = await writerFor(harness.adapter).editMessage(chat, { ids: first }, { author: bob, text }, observer);
    expect(sent.ids.length).toBeGreaterThanOrEqual(3);
    expect(sent.ids[0]).toBe(first[0]);
    const shown = harness.fake.messagesIn(harness.general.id);
    expect(shown.map((message) => message.id)).toEqual(sent.ids);
    expect(shown.map((message) => message.content)).toEqual(renderText(text, undefined));
    // Parts posted anew while more were to come were recorded too, each with the ids so far.
    expect(recorded.slice(1)).toEqual(sent.ids.slice(2).map((_, index) => sent.ids.slice(0, index + 2)));
  });

  it("records the shorter text before removing the parts it no longer needs", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    const long = await writerFor(h.adapter).postMessage(chat, { author: bob, text: longAnswer() });
    const recorded: string[][] = [];
    const observer = {
      posted: async (sent: { ids: string[] }) => {
        recorded.push(sent.ids);
      },
    };
    const sent = await writerFor(h.adapter).editMessage(chat, long, { author: bob, text: "short now" }, observer);
    expect(sent.ids).toEqual([long.ids[0]]);
    expect(recorded).toEqual([[long.ids[0]]]);
    expect(h.fake.messagesIn(h.general.id).map((message) => message.content)).toEqual(["short now"]);
  });

  it("tells the observer an outcome posted anew because its card is gone", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    const card = {
      approvalId: "approval-1",
      shortId: "a1",
      agent: "bob",
      tool: "shell_cmd",
      argumentsJson: '{"command":"ls"}',
      argumentsPreview: '{"command":"ls"}',
      reason: "shell_cmd needs approval",
      requestedFor: "Ana",
      choices: ["once", "session", "deny"] as const,
      expiresAt: new Date(Date.now() + 60_000),
    };
    const sent = await writerFor(h.adapter).postApprovalCard(chat, card);
    const shown = h.fake.message(sent.ids[0] ?? "");
    if (shown) shown.deleted = true;
    const recorded: string[][] = [];
    const observer = {
      posted: async (ids: { ids: string[] }) => {
        recorded.push(ids.ids);
      },
    };
    await writerFor(h.adapter).updateApprovalCard(
      chat,
      sent,
      {
        approvalId: card.approvalId,
        shortId: card.shortId,
        agent: "bob",
        tool: "shell_cmd",
        argumentsPreview: "{}",
        state: "denied",
        decidedBy: { id: "1", name: "Ana" },
        at: new Date(),
      },
      observer,
    );
    const messages = h.fake.messagesIn(h.general.id);
    expect(messages).toHaveLength(1);
    expect(recorded).toEqual([[messages[0]?.id]]);
  });
});
