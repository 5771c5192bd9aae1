import { describe, expect, it } from "vitest";
import { turnLimitNotice, turnLimitReached } from "./turn-limit.js";

describe("turnLimitReached", () => {
  it.each([
    { turns: 0, limit: 6, expected: false },
    { turns: 5, limit: 6, expected: false },
    { turns: 6, limit: 6, expected: true },
    { turns: 7, limit: 6, expected: true },
    { turns: 0, limit: 1, expected: false },
    { turns: 1, limit: 1, expected: true },
  ])("$turns turns, limit $limit → $expected", ({ turns, limit, expected }) => {
    expect(turnLimitReached(turns, limit)).toBe(expected);
  });
});

describe("turnLimitNotice", () => {
  const rest =
    "the agents have taken 6 turns without a human message and are stopping here. Address one of them to continue.";
  it.each([
    { case: "one human", humans: ["ana"], limit: 6, expected: `@ana ${rest}` },
    { case: "two humans, @ and duplicates", humans: ["ana", "@dan", "ana"], limit: 6, expected: `@ana @dan ${rest}` },
    { case: "no humans", humans: [], limit: 6, expected: `T${rest.slice(1)}` },
    {
      case: "limit of one",
      humans: ["ana"],
      limit: 1,
      expected:
        "@ana the agents have taken 1 turn without a human message and are stopping here. Address one of them to continue.",
    },
  ])("$case", ({ humans, limit, expected }) => {
    expect(turnLimitNotice(humans, limit)).toBe(expected);
  });
});
