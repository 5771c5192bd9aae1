import { describe, expect, it } from "vitest";
import { unknownAgentNotice } from "./unknown-agent-notice.js";

describe("unknownAgentNotice", () => {
  it.each([
    {
      case: "one unknown name",
      unknown: ["carol"],
      known: ["alice", "bob"],
      expected: "There is no agent named @carol here. Agents in this world: @alice, @bob.",
    },
    {
      case: "several unknown names",
      unknown: ["carol", "dave", "erin"],
      known: ["alice"],
      expected: "There are no agents named @carol, @dave and @erin here. Agents in this world: @alice.",
    },
    {
      case: "a likely typo",
      unknown: ["alcie"],
      known: ["alice", "bob"],
      expected: "There is no agent named @alcie here. Did you mean @alice? Agents in this world: @alice, @bob.",
    },
    {
      case: "typos of two agents",
      unknown: ["alicee", "bobb"],
      known: ["alice", "bob"],
      expected:
        "There are no agents named @alicee and @bobb here. Did you mean @alice or @bob? Agents in this world: @alice, @bob.",
    },
    {
      case: "names given with @, duplicates",
      unknown: ["@carol", "carol"],
      known: ["alice"],
      expected: "There is no agent named @carol here. Agents in this world: @alice.",
    },
    {
      case: "no agents at all",
      unknown: ["carol"],
      known: [],
      expected: "There is no agent named @carol here. This world has no agents.",
    },
  ])("$case", ({ unknown, known, expected }) => {
    expect(unknownAgentNotice(unknown, known)).toBe(expected);
  });
});
