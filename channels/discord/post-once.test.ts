import { describe, expect, it } from "vitest";
import { nonceOf, snowflakeAt } from "./post-once.js";

describe("Discord post keys", () => {
  it("a nonce is at most 25 characters, the same for the same key and different for another part", () => {
    const first = nonceOf("in-abc>alice#1:0");
    expect(first.length).toBeLessThanOrEqual(25);
    expect(nonceOf("in-abc>alice#1:0")).toBe(first);
    expect(nonceOf("in-abc>alice#1:1")).not.toBe(first);
  });

  it("a time becomes the smallest snowflake of that millisecond (Discord's epoch, 22 bits)", () => {
    // Discord's documented example: 175928847299117063 was created at 1462015105796.
    const snowflake = BigInt(snowflakeAt(1_462_015_105_796));
    expect(snowflake).toBeLessThanOrEqual(175_928_847_299_117_063n);
    expect(175_928_847_299_117_063n - snowflake).toBeLessThan(1n << 22n);
  });
});
