import { describe, expect, it } from "vitest";
import type { MessageRecord } from "../../world/records.js";
import { orderConversation } from "./order-conversation.js";

let seq = 0;
function human(id: string): MessageRecord {
  seq += 1;
  return { id, seq, chatKey: "c", author: { kind: "human", id: "ana", name: "ana" }, text: id, createdAt: new Date() };
}
function answer(id: string, question: string, agent: string): MessageRecord {
  seq += 1;
  return {
    id,
    seq,
    chatKey: "c",
    author: { kind: "agent", id: agent, name: agent },
    text: id,
    turnId: `${question}>${agent}`,
    createdAt: new Date(),
  };
}

const ids = (messages: MessageRecord[]) => messages.map((message) => message.id);

describe("orderConversation", () => {
  it("places answers after their questions, chains included, and this turn's steps last", () => {
    const q1 = human("q1");
    const q2 = human("q2");
    const a1 = answer("a1", "q1", "bob");
    const reply = answer("reply", "a1", "alice");
    const own1 = answer("own1", "q2", "bob");
    const q3 = human("q3");
    const a3 = answer("a3", "q3", "alice");
    const own2 = answer("own2", "q2", "bob");
    const messages = [q1, q2, a1, reply, own1, q3, a3, own2];
    expect(ids(orderConversation(messages, { id: "q2>bob", triggerMessageId: "q2" }))).toEqual([
      "q1",
      "a1",
      "reply",
      "q2",
      "own1",
      "own2",
    ]);
  });

  it("keeps an answer to a question older than the window, and everything when the trigger is unknown", () => {
    const old = answer("old", "gone", "bob");
    const q = human("q");
    const later = human("later");
    expect(ids(orderConversation([old, q, later], { id: "q>bob", triggerMessageId: "q" }))).toEqual(["old", "q"]);
    expect(ids(orderConversation([old, q, later], { id: "x>bob", triggerMessageId: "x" }))).toEqual([
      "old",
      "q",
      "later",
    ]);
  });
});
