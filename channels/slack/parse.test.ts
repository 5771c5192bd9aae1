import { describe, expect, it } from "vitest";
import { encodeApprovalValue } from "./action-value.js";
import { type ParseContext, parseAction, parseEvent } from "./parse.js";

const context: ParseContext = {
  botUserId: "U0BOT",
  botId: "B0BOT",
  teamId: "T1",
  replyIn: "thread",
  agentNames: new Map([
    ["alice", "alice"],
    ["bob", "bob"],
  ]),
  userNames: new Map([
    ["U1ANA", "Ana"],
    ["U2EVE", "Eve"],
  ]),
};

function envelope(event: Record<string, unknown>) {
  return {
    type: "event_callback",
    team_id: "T1",
    event_id: "Ev1",
    event: { channel: "C1", ts: "1700000000.000100", ...event },
  };
}

describe("parseEvent", () => {
  it("reads a channel message as the start of its own thread, with the sender's name", () => {
    const parsed = parseEvent(envelope({ type: "message", user: "U1ANA", text: "hello &amp; &lt;b&gt;" }), context);
    expect(parsed).toMatchObject({
      kind: "message",
      eventId: "Ev1",
      message: {
        chat: { platform: "slack", workspace: "T1", channel: "C1", thread: "1700000000.000100" },
        platformMessageId: "1700000000.000100",
        sender: { id: "U1ANA", displayName: "Ana", isBot: false },
        text: "hello & <b>",
      },
    });
  });

  it("keeps a thread reply in its thread, and a message in the channel with replyIn: channel", () => {
    const reply = parseEvent(
      envelope({ type: "message", user: "U1ANA", text: "hi", thread_ts: "1699999999.000001" }),
      context,
    );
    expect(reply.kind === "message" && reply.message.chat.thread).toBe("1699999999.000001");
    const flat = parseEvent(envelope({ type: "message", user: "U1ANA", text: "hi" }), {
      ...context,
      replyIn: "channel",
    });
    expect(flat.kind === "message" && flat.message.chat.thread).toBeUndefined();
    const direct = parseEvent(envelope({ type: "message", user: "U1ANA", text: "hi", channel_type: "im" }), context);
    expect(direct.kind === "message" && direct.message.chat.thread).toBeUndefined();
  });

  it("turns mentions into names: the bot user then an agent, the bot user alone, people", () => {
    const toBob = parseEvent(
      envelope({ type: "app_mention", user: "U1ANA", text: "<@U0BOT> Bob, check <@U2EVE>'s PR" }),
      context,
    );
    expect(toBob).toMatchObject({ message: { text: "@bob, check @Eve's PR", mentions: ["bob", "Eve"] } });
    const toDefault = parseEvent(
      envelope({ type: "app_mention", user: "U1ANA", text: "<@U0BOT> what time is it" }),
      context,
    );
    expect(toDefault).toMatchObject({ message: { text: "what time is it", mentions: [] } });
    const other = parseEvent(
      envelope({ type: "message", user: "U1ANA", text: "see <https://x.io|docs> in <#C9|ops> <!subteam^S1|@oncall>" }),
      context,
    );
    expect(other).toMatchObject({ message: { text: "see docs in #ops @oncall" } });
  });

  it("starts nothing for edits, deletions, joins and empty text; marks the service's own posts", () => {
    for (const event of [
      { type: "message", subtype: "message_changed", message: {} },
      { type: "message", subtype: "message_deleted" },
      { type: "message", subtype: "channel_join", user: "U1ANA", text: "joined" },
      { type: "message", user: "U1ANA", text: "  " },
    ]) {
      expect(parseEvent(envelope(event), context).kind).toBe("ignored");
    }
    // The app's own posts (persona or bot user) are handed in marked, so the world drops them knowingly.
    for (const event of [
      { type: "message", subtype: "bot_message", bot_id: "B0BOT", username: "alice", text: "persona post" },
      { type: "message", user: "U0BOT", text: "own post" },
    ]) {
      expect(parseEvent(envelope(event), context)).toMatchObject({
        kind: "message",
        message: { ownEcho: true, sender: { isBot: true } },
      });
    }
    const otherBot = parseEvent(
      envelope({ type: "message", subtype: "bot_message", bot_id: "B9", username: "ci", text: "build red" }),
      context,
    );
    expect(otherBot).toMatchObject({
      kind: "message",
      message: { sender: { id: "B9", displayName: "ci", isBot: true } },
    });
  });

  it("says what is wrong with a malformed event", () => {
    expect(parseEvent({ type: "event_callback" }, context)).toMatchObject({ kind: "invalid" });
    expect(parseEvent(envelope({ type: "message", ts: "yesterday", user: "U1" }), context)).toMatchObject({
      kind: "invalid",
      reason: expect.stringContaining("ts"),
    });
  });
});

describe("parseAction", () => {
  const press = (value: string) => ({
    type: "block_actions",
    team: { id: "T1" },
    user: { id: "U2EVE", username: "eve" },
    channel: { id: "C1" },
    container: { message_ts: "1700000001.000200", thread_ts: "1700000000.000100" },
    trigger_id: "trig-1",
    actions: [{ action_id: "roundtable_approval_once", value }],
  });

  it("reads the approval id and choice, and the card's thread as the chat", () => {
    expect(parseAction(press(encodeApprovalValue("ap1", "once")), context)).toMatchObject({
      kind: "click",
      click: {
        chat: { platform: "slack", workspace: "T1", channel: "C1", thread: "1700000000.000100" },
        approvalId: "ap1",
        choice: "once",
        user: { id: "U2EVE", displayName: "Eve" },
        platformEventId: "trig-1",
      },
    });
  });

  it("refuses a value it did not write and a malformed payload", () => {
    expect(parseAction(press("ap1|forever"), context)).toMatchObject({ kind: "bad-click", user: "U2EVE" });
    expect(parseAction({ type: "block_actions", actions: [] }, context)).toMatchObject({ kind: "invalid" });
  });
});
