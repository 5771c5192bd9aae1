import { describe, expect, it } from "vitest";
import { tsBefore } from "./post-once.js";

describe("Slack post look-up bounds", () => {
  it("a time becomes a Slack ts ten seconds earlier (clock skew), never negative", () => {
    expect(tsBefore(new Date(1_800_000_000_500))).toBe("1799999990.500000");
    expect(tsBefore(new Date(0))).toBe("0.000000");
  });
});
