import { describe, expect, it } from "vitest";
import { earliestPostTime, partOnce } from "./part-once.js";

describe("a part posted once", () => {
  it("no key, no part; a part carries its key with its index, whether to look, since when, and the stored check", () => {
    expect(partOnce(undefined, 0)).toBeUndefined();
    const since = new Date(0);
    expect(partOnce({ id: "card:a1", mayExist: true, since }, 0)).toEqual({ key: "card:a1:0", mayExist: true, since });
    const isStored = async () => false;
    expect(partOnce({ id: "m1", mayExist: false, since, isStored }, 2)).toEqual({
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
