import { describe, expect, it } from "vitest";
import { earliestPostTime, partKeyOf } from "./post-key.js";

describe("a post's key", () => {
  it("a part carries its post's key with its index, whether to look, since when, and the stored check", () => {
    const since = new Date(0);
    expect(partKeyOf({ id: "card:a1", mayExist: true, since }, 0)).toEqual({ key: "card:a1:0", mayExist: true, since });
    const isStored = async () => false;
    expect(partKeyOf({ id: "m1", mayExist: false, since, isStored }, 2)).toEqual({
      key: "m1:2",
      mayExist: false,
      since,
      isStored,
    });
  });

  it("a look-up reaches ten seconds before the post's bound (clock skew), never before 1970", () => {
    expect(earliestPostTime({ since: new Date(1_800_000_000_500) })).toBe(1_799_999_990_500);
    expect(earliestPostTime({ since: new Date(0) })).toBe(0);
  });
});
