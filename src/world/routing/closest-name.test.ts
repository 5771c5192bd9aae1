import { describe, expect, it } from "vitest";
import { closestName } from "./closest-name.js";

describe("closestName", () => {
  const agents = ["alice", "bob", "Release-Bot", "ann", "anna"];
  it.each([
    { name: "alcie", expected: "alice" },
    { name: "ALIC", expected: "alice" },
    { name: "bobb", expected: "bob" },
    { name: "release-bott", expected: "Release-Bot" },
    { name: "carol", expected: undefined },
    { name: "bb", expected: "bob" },
    { name: "xy", expected: undefined },
    { name: "anne", expected: undefined },
    { name: "zzz", expected: undefined },
  ])("$name → $expected", ({ name, expected }) => {
    expect(closestName(name, agents)).toBe(expected);
  });
});
