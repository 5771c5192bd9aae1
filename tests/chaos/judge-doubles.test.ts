import { describe, expect, it } from "vitest";
import { judgeDoubles, type Life, type Post } from "./judge-doubles.js";

const lives: Life[] = [
  { slot: 0, pid: 100, startedAt: 0, killedAt: 5_100 },
  { slot: 1, pid: 200, startedAt: 0 },
  { slot: 0, pid: 300, startedAt: 6_000 },
];
const post = (messageId: number, pid: number | undefined, at: number): Post => ({
  at,
  chatId: 7,
  messageId,
  text: "re m7x1 ok",
  pid,
});
const judge = (posts: Post[], storedIds: string[] = []) =>
  judgeDoubles("m7x1", 7, [1, 2], { lives, posts, windowMs: 250, storedIds: new Set(storedIds) });

describe("judging an answer shown twice", () => {
  it("blames the platform's window when the first copy's sender died just after Telegram answered it", () => {
    const verdict = judge([post(1, 100, 5_000), post(2, 300, 7_000)]);
    expect(verdict.inWindow).toBe(true);
    expect(verdict.copies[0]).toEqual({ messageId: 1, pid: 100, slot: 0, killedAfterMs: 100, stored: false });
  });

  it("also when the kill came while the answer was on its way", () => {
    expect(judge([post(1, 100, 5_150), post(2, 300, 7_000)]).inWindow).toBe(true);
  });

  it("fails a double whose first sender was killed later than the window", () => {
    expect(judge([post(1, 100, 4_000), post(2, 300, 7_000)]).inWindow).toBe(false);
  });

  it("fails a double whose first sender lived on", () => {
    expect(judge([post(1, 200, 5_000), post(2, 300, 7_000)]).inWindow).toBe(false);
  });

  it("fails a double whose first copy's id was stored, however soon the kill came", () => {
    expect(judge([post(1, 100, 5_000), post(2, 300, 7_000)], ["7/1"]).inWindow).toBe(false);
  });

  it("fails a double whose first copy cannot be traced to a process", () => {
    expect(judge([post(1, undefined, 5_000), post(2, 300, 7_000)]).inWindow).toBe(false);
    expect(judge([post(2, 300, 7_000)]).inWindow).toBe(false);
  });
});
