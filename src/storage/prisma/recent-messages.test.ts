import { describe, expect, it } from "vitest";
import type { MessageRecord } from "../../world/records.js";
import { RecentMessages } from "./recent-messages.js";

/** A chat log in memory and a reader over it that counts the rows it hands out. */
function chatLog() {
  const rows: MessageRecord[] = [];
  let read = 0;
  const add = (chatKey: string) =>
    rows.push({
      seq: rows.length + 1,
      id: `m${rows.length + 1}`,
      chatKey,
      author: { kind: "human", id: "u", name: "Ana" },
      text: `text ${rows.length + 1}`,
      createdAt: new Date(0),
    });
  const reader = async (chatKey: string, latest: number, afterSeq = -1) => {
    const found = rows.filter((row) => row.chatKey === chatKey && row.seq > afterSeq).slice(-latest);
    read += found.length;
    return found;
  };
  return { add, reader, rowsRead: () => read };
}

describe("RecentMessages", () => {
  it("reads a chat's window once, then only the rows stored since", async () => {
    const log = chatLog();
    for (let index = 0; index < 300; index++) log.add("a");
    const recent = new RecentMessages(log.reader, 100, 1_000);
    expect((await recent.latest("a", 50)).map((row) => row.seq)).toEqual(range(251, 300));
    expect(log.rowsRead()).toBe(100);
    log.add("a");
    log.add("b");
    expect((await recent.latest("a", 50)).map((row) => row.seq)).toEqual([...range(252, 300), 301]);
    expect(log.rowsRead()).toBe(101);
    // More than the window asked: read from the database, not held.
    expect(await recent.latest("a", 150)).toHaveLength(150);
  });

  it("keeps at most its total of messages, forgetting the least recently read chats", async () => {
    const log = chatLog();
    for (let index = 0; index < 30; index++) log.add("a");
    for (let index = 0; index < 30; index++) log.add("b");
    const recent = new RecentMessages(log.reader, 30, 40);
    await recent.latest("a", 10);
    await recent.latest("b", 10); // 60 held > 40: "a" goes
    const before = log.rowsRead();
    await recent.latest("b", 10);
    expect(log.rowsRead()).toBe(before);
    await recent.latest("a", 10);
    expect(log.rowsRead()).toBe(before + 30);
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}
