import { describe, expect, it } from "vitest";
import { safeFileName, uniqueSafeNames } from "./inbound-files.js";

describe("file names for the workdir", () => {
  it("never gives a dot-file, also when the cut to 100 characters starts at a dot", () => {
    const long = `${"a".repeat(20)}.${"b".repeat(99)}`;
    expect(safeFileName(long)).toBe("b".repeat(99));
    for (const name of ["..", ".", ".env", "._x", "/etc/passwd", "..\\..\\boot.ini", "é"]) {
      const safe = safeFileName(name);
      expect(safe.startsWith(".")).toBe(false);
      expect(safe).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/);
    }
  });

  it("gives every file of a message its own name, also when a given name looks like a renamed one", () => {
    expect(uniqueSafeNames(["a.txt", "a.txt", "2-a.txt"])).toEqual(["a.txt", "3-a.txt", "2-a.txt"]);
    expect(uniqueSafeNames(["a b", "a_b", "a?b"])).toEqual(["a_b", "2-a_b", "3-a_b"]);
    const many = uniqueSafeNames(["x", "2-x", "x", "3-x", "x"]);
    expect(new Set(many).size).toBe(many.length);
  });
});
