import { describe, expect, it } from "vitest";
import { approveUsage, parseConsoleLine } from "./parse.js";

describe("console /approve", () => {
  it("takes a reason after deny's id, and the edited JSON after edit's id", () => {
    expect(parseConsoleLine("/approve deny 7f3a not on fridays")).toEqual({
      kind: "approve",
      choice: "deny",
      approvalId: "7f3a",
      reason: "not on fridays",
    });
    expect(parseConsoleLine('/approve edit 7f3a {"command": "echo", "args": ["x"]}')).toEqual({
      kind: "approve",
      choice: "edit",
      approvalId: "7f3a",
      reason: '{"command": "echo", "args": ["x"]}',
    });
    expect(parseConsoleLine("/approve maybe 7f3a")).toEqual({ kind: "invalid", problem: approveUsage });
  });
});
