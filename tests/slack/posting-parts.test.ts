import { afterEach, describe, expect, it } from "vitest";
import { SlackAdapter } from "../../channels/slack/adapter.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";
import { renderText } from "../../channels/slack/render.js";
import type { ApprovalCard } from "../../src/world/approval-types.js";
import { defaultScopes, FakeSlack } from "../fakes/slack-api.js";
import { capturingLogger, InstantClock, RecordingSink } from "../telegram/helpers.js";
import { ana, appToken, botToken, channel, signingSecret, teamId } from "./world-slack.js";

let fake: FakeSlack | undefined;
let adapter: SlackAdapter | undefined;
afterEach(async () => {
  await adapter?.stop();
  await fake?.close();
  adapter = undefined;
  fake = undefined;
});

/** The adapter alone over Socket Mode, with a recording sink standing in for the world. */
async function started(): Promise<{ fake: FakeSlack; adapter: SlackAdapter }> {
  fake = await FakeSlack.start({
    botToken,
    appToken,
    signingSecret,
    teamId,
    scopes: defaultScopes,
    users: [{ id: ana, name: "ana", displayName: "Ana" }],
  });
  adapter = new SlackAdapter({
    botToken,
    appToken,
    apiUrl: fake.apiUrl,
    agents: [{ name: "alice", displayName: "Alice" }],
    logger: capturingLogger().logger,
    clock: new InstantClock(),
  });
  await adapter.start(new RecordingSink());
  await fake.socket.whenConnected();
  fake.messages.add({ channel, user: ana, text: "root", ts: thread.thread });
  return { fake, adapter };
}

const thread = { platform: "slack" as const, workspace: teamId, channel, thread: "1800000000.000001" };
const alice = { kind: "agent" as const, id: "alice", name: "alice" };

/** A text Slack shows in at least three messages (3,900 characters each). */
function longAnswer(): string {
  return ["first", "second", "third", "fourth"].map((word) => `${word} `.repeat(700).trim()).join("\n\n");
}

function recorder(onFirst?: () => void) {
  const recorded: string[][] = [];
  const observer = {
    posted: async (sent: { ids: string[] }) => {
      recorded.push(sent.ids);
      if (recorded.length === 1) onFirst?.();
    },
  };
  return { recorded, observer };
}

function cardWith(padding: string): ApprovalCard {
  const argumentsJson = JSON.stringify({ command: "echo", args: [padding] });
  return {
    approvalId: "approval-1",
    shortId: "a1",
    agent: "alice",
    tool: "shell_cmd",
    argumentsJson,
    argumentsPreview: argumentsJson.slice(0, 200),
    reason: "shell_cmd needs approval",
    requestedFor: "Ana",
    choices: ["once", "session", "deny"],
    expiresAt: new Date(Date.now() + 60_000),
  };
}

describe("a long answer on Slack, part by part", () => {
  it("records each part before posting the next, so a retry after a refusal between parts edits them instead of posting them again", async () => {
    const h = await started();
    const text = longAnswer();
    const replies = () => h.fake.botPosts(channel, thread.thread).filter((message) => message.ts !== thread.thread);
    // Slack refuses the post that follows the first recorded part.
    const { recorded, observer } = recorder(() =>
      h.fake.failNext("chat.postMessage", { status: 200, error: "internal_error" }),
    );
    await expect(writerFor(h.adapter).postMessage(thread, { author: alice, text }, observer)).rejects.toThrow(
      /internal_error/,
    );
    expect(recorded).toEqual([[expect.any(String)]]);
    const first = recorded[0] ?? [];
    expect(replies()).toHaveLength(1);

    // The retry (what the world does with that record) edits the first part and posts the rest.
    const sent = await writerFor(h.adapter).editMessage(thread, { ids: first }, { author: alice, text }, observer);
    expect(sent.ids.length).toBeGreaterThanOrEqual(3);
    expect(sent.ids[0]).toBe(first[0]);
    expect(replies().map((message) => message.ts)).toEqual(sent.ids);
    expect(replies().map((message) => message.text)).toEqual(renderText(text));
    // Parts posted anew while more were to come were recorded too, each with the ids so far.
    expect(recorded.slice(1)).toEqual(sent.ids.slice(2).map((_, index) => sent.ids.slice(0, index + 2)));
  });

  it("records the shorter text before removing the parts it no longer needs", async () => {
    const h = await started();
    const long = await writerFor(h.adapter).postMessage(thread, { author: alice, text: longAnswer() });
    const { recorded, observer } = recorder();
    const sent = await writerFor(h.adapter).editMessage(thread, long, { author: alice, text: "short now" }, observer);
    expect(sent.ids).toEqual([long.ids[0]]);
    expect(recorded).toEqual([[long.ids[0]]]);
    const replies = h.fake.botPosts(channel, thread.thread).filter((message) => message.ts !== thread.thread);
    expect(replies.map((message) => message.text)).toEqual(["short now"]);
  });

  it("records a card before its arguments file is sent", async () => {
    const h = await started();
    let filesWhenRecorded: number | undefined;
    const { recorded, observer } = recorder(() => {
      filesWhenRecorded = h.fake.files.length;
    });
    const sent = await writerFor(h.adapter).postApprovalCard(thread, cardWith("x".repeat(4000)), observer);
    expect(recorded).toEqual([sent.ids]);
    expect(filesWhenRecorded).toBe(0);
    expect(h.fake.files).toHaveLength(1);
  });

  it("tells the observer an outcome posted anew because its card is gone", async () => {
    const h = await started();
    const card = cardWith("short");
    const sent = await writerFor(h.adapter).postApprovalCard(thread, card);
    const shown = h.fake.messagesIn(channel, thread.thread).find((message) => message.ts === sent.ids[0]);
    if (shown) shown.deleted = true;
    const { recorded, observer } = recorder();
    const outcome = {
      approvalId: card.approvalId,
      shortId: card.shortId,
      agent: "alice",
      tool: "shell_cmd",
      argumentsPreview: "{}",
      state: "denied" as const,
      decidedBy: { id: ana, name: "Ana" },
      at: new Date(),
    };
    await writerFor(h.adapter).updateApprovalCard(thread, sent, outcome, observer);
    const replies = h.fake.botPosts(channel, thread.thread).filter((message) => message.ts !== thread.thread);
    expect(replies).toHaveLength(1);
    expect(recorded).toEqual([[replies[0]?.ts]]);
  });
});
