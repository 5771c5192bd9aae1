import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { MentionDirectory } from "./mentions.js";
import { parseUpdate } from "./parse.js";

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../tests/fixtures/telegram/${name}.json`, import.meta.url), "utf8"));
}

const directory: MentionDirectory = {
  mainBotUsername: "roundtable_bot",
  mainBotId: 7000,
  agentBotsByUsername: new Map([["alice_rt_bot", "alice"]]),
  agentBotsById: new Map([[7001, "alice"]]),
  agentNames: new Map([
    ["alice", "alice"],
    ["bob", "bob"],
  ]),
};

describe("parseUpdate", () => {
  it("reads a group message: mentions as @name, stable message id, sender id", () => {
    const parsed = parseUpdate(fixture("group-message-mentions"), directory);
    expect(parsed.kind).toBe("message");
    if (parsed.kind !== "message") return;
    const { message } = parsed;
    expect(message.chat).toEqual({ platform: "telegram", channel: "-1001234567890" });
    expect(message.platformMessageId).toBe("4211");
    expect(message.sender).toEqual({ id: "111", displayName: "Ana Ruiz", handle: "ana_r", isBot: false });
    expect(message.text).toBe("@alice please check with @bob and @roundtable_bot, cc @Carl");
    expect(message.mentions).toEqual(["alice", "bob", "Carl"]);
    expect(message.receivedAt.toISOString()).toBe(new Date(1763900000 * 1000).toISOString());
    expect(message.raw).toEqual(fixture("group-message-mentions"));
  });

  it.each([
    {
      who: "the main bot",
      from: { id: 7000, is_bot: true, first_name: "Roundtable", username: "roundtable_bot" },
      own: true,
    },
    {
      who: "an agent's own bot",
      from: { id: 7001, is_bot: true, first_name: "Alice", username: "alice_rt_bot" },
      own: true,
    },
    { who: "another bot", from: { id: 9001, is_bot: true, first_name: "Other", username: "other_bot" }, own: false },
    { who: "a person", from: { id: 111, is_bot: false, first_name: "Ana" }, own: false },
  ])("marks a message from $who as an echo of our own posts: $own", ({ from, own }) => {
    const raw = {
      update_id: 1,
      message: { message_id: 5, date: 1, chat: { id: -100, type: "supergroup", title: "t" }, from, text: "hello" },
    };
    const parsed = parseUpdate(raw, directory);
    expect(parsed.kind).toBe("message");
    if (parsed.kind !== "message") return;
    expect(parsed.message.ownEcho === true).toBe(own);
  });

  it("drops the main bot's own @username when it opens the message", () => {
    const raw = {
      update_id: 1,
      message: {
        message_id: 5,
        date: 1,
        chat: { id: -5, type: "group", title: "g" },
        from: { id: 1, is_bot: false, first_name: "Ana" },
        text: "@roundtable_bot hi there",
        entities: [{ type: "mention", offset: 0, length: 15 }],
      },
    };
    const parsed = parseUpdate(raw, directory);
    expect(parsed).toMatchObject({ kind: "message", message: { text: "hi there", mentions: [] } });
  });

  it("makes a forum topic its own chat and does not take the topic's first message for a reply", () => {
    const parsed = parseUpdate(fixture("forum-topic-message"), directory);
    expect(parsed.kind).toBe("message");
    if (parsed.kind !== "message") return;
    expect(parsed.message.chat).toEqual({ platform: "telegram", channel: "-1009876543210", thread: "42" });
    expect(parsed.message.replyTo).toBeUndefined();
  });

  it("sets replyTo for a reply to an agent's message", () => {
    const parsed = parseUpdate(fixture("reply-to-agent"), directory);
    expect(parsed).toMatchObject({ kind: "message", message: { replyTo: "4212", text: "thanks, and the changelog?" } });
  });

  it("reads a private chat and a captioned photo", () => {
    expect(parseUpdate(fixture("private-message"), directory)).toMatchObject({
      kind: "message",
      message: { chat: { platform: "telegram", channel: "111" }, text: "hello" },
    });
    expect(parseUpdate(fixture("photo-with-caption"), directory)).toMatchObject({
      kind: "message",
      message: { text: "@alice what is this error?", mentions: ["alice"] },
    });
  });

  it("marks other bots' messages as bots", () => {
    expect(parseUpdate(fixture("bot-message"), directory)).toMatchObject({
      kind: "message",
      message: { sender: { id: "9191", isBot: true } },
    });
  });

  it("ignores messages without text", () => {
    expect(parseUpdate(fixture("sticker"), directory)).toMatchObject({ kind: "ignored" });
  });

  it("reads a button press in a forum topic as an approval click", () => {
    const parsed = parseUpdate(fixture("callback-query"), directory);
    expect(parsed).toMatchObject({
      kind: "click",
      callbackQueryId: "4382736451823456789",
      click: {
        chat: { platform: "telegram", channel: "-1009876543210", thread: "42" },
        approvalId: "0mfxq2k3a9f3c2e1d0b4a5968",
        choice: "session",
        user: { id: "111", displayName: "Ana", isBot: false },
        platformEventId: "4382736451823456789",
      },
    });
  });

  it("answers a press with malformed data as a bad click", () => {
    const raw = fixture("callback-query") as { callback_query: { data: string } };
    raw.callback_query.data = "vote:42";
    expect(parseUpdate(raw, directory)).toMatchObject({ kind: "bad-click", callbackQueryId: "4382736451823456789" });
  });

  it.each([
    ["not an object", "nonsense"],
    ["no update id", { message: { text: "x" } }],
    ["message without chat", { update_id: 3, message: { message_id: 1, date: 1, text: "x" } }],
    [
      "entities of the wrong shape",
      {
        update_id: 4,
        message: {
          message_id: 1,
          date: 1,
          chat: { id: 1, type: "private" },
          from: { id: 1, is_bot: false, first_name: "A" },
          text: "x",
          entities: "no",
        },
      },
    ],
  ])("reports %s as invalid instead of throwing", (_, raw) => {
    expect(parseUpdate(raw, directory).kind).toBe("invalid");
  });

  it("reports an update type it does not handle as ignored", () => {
    expect(parseUpdate({ update_id: 9, edited_message: {} }, directory)).toMatchObject({ kind: "ignored" });
  });
});

describe("files of a message", () => {
  const base = {
    message_id: 9,
    date: 1_700_000_000,
    chat: { id: -1001, type: "supergroup" },
    from: { id: 111, is_bot: false, first_name: "Ana" },
  };
  const update = (message: Record<string, unknown>) => ({ update_id: 1, message: { ...base, ...message } });

  it("takes a photo's largest size, a document under its name, a voice note and an audio file", () => {
    const parsed = parseUpdate(
      update({
        caption: "look",
        photo: [
          { file_id: "small", file_unique_id: "u1", width: 90, height: 60, file_size: 900 },
          { file_id: "large", file_unique_id: "u2", width: 1280, height: 853, file_size: 90_000 },
          { file_id: "mid", file_unique_id: "u3", width: 320, height: 213 },
        ],
        document: { file_id: "doc", file_unique_id: "u4", file_name: "report.pdf", file_size: 1234 },
        voice: { file_id: "voice", file_unique_id: "u5", duration: 3 },
        audio: { file_id: "audio", file_unique_id: "u6", duration: 30 },
      }),
      directory,
    );
    expect(parsed.kind).toBe("message");
    if (parsed.kind !== "message") return;
    expect(parsed.message.text).toBe("look");
    expect(parsed.files).toEqual([
      { fileId: "large", name: "photo-u2.jpg", size: 90_000 },
      { fileId: "doc", name: "report.pdf", size: 1234 },
      { fileId: "voice", name: "voice-u5.ogg" },
      { fileId: "audio", name: "audio-u6" },
    ]);
  });

  it("a file without a caption is a message with empty text; a message with neither is ignored", () => {
    const photoOnly = parseUpdate(
      update({ photo: [{ file_id: "p", file_unique_id: "u", width: 1, height: 1 }] }),
      directory,
    );
    expect(photoOnly.kind === "message" ? photoOnly.message.text : photoOnly.kind).toBe("");
    expect(parseUpdate(update({}), directory).kind).toBe("ignored");
  });
});
