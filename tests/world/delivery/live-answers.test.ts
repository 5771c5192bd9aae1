import { describe, expect, it } from "vitest";
import type { MessageStream } from "../../../src/world/channel-streaming.js";
import { LiveAnswers } from "../../../src/world/delivery/live-answers.js";

const stream: MessageStream = {
  update: () => {},
  finish: async () => ({ ids: [] }),
  abort: async () => {},
};

describe("the live answers a process holds for their delivery", () => {
  it("are taken once by their delivery, dropped when discarded", () => {
    const answers = new LiveAnswers();
    answers.put("t1#1", stream);
    answers.put("t1#2", stream);
    expect(answers.take("t1#1")).toBe(stream);
    expect(answers.take("t1#1")).toBeUndefined();
    answers.drop("t1#2");
    expect(answers.size).toBe(0);
  });

  it("are forgotten after the TTL when their delivery ran in another process", () => {
    let now = 0;
    const answers = new LiveAnswers(60_000, () => now);
    answers.put("t1#1", stream);
    now = 59_999;
    expect(answers.size).toBe(1);
    now = 60_000;
    expect(answers.size).toBe(0);
    expect(answers.take("t1#1")).toBeUndefined();
  });
});
