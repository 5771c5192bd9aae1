import { describe, expect, it } from "vitest";
import { addressBack } from "./address-back.js";

const agents = ["alice", "bob", "carol"];

describe("addressBack", () => {
  it.each([
    { case: "plain answer goes back", text: "here is the plan", replyTo: "alice", expected: "@alice here is the plan" },
    { case: "reply target in configured spelling", text: "ok", replyTo: "ALICE", expected: "@alice ok" },
    { case: "leading whitespace trimmed", text: "\n  here", replyTo: "alice", expected: "@alice here" },
    { case: "already addresses the target", text: "@alice done", replyTo: "alice", expected: "@alice done" },
    {
      case: "already addresses another agent",
      text: "@carol please check",
      replyTo: "alice",
      expected: "@carol please check",
    },
    {
      case: "already addresses a person",
      text: "@ana please approve",
      replyTo: "alice",
      expected: "@ana please approve",
    },
    {
      case: "address in a later paragraph",
      text: "Done.\n\n@carol over to you",
      replyTo: "alice",
      expected: "Done.\n\n@carol over to you",
    },
    {
      case: "mid-sentence mention still goes back",
      text: "I agree with @carol",
      replyTo: "alice",
      expected: "@alice I agree with @carol",
    },
    {
      case: "mention in code still goes back",
      text: "`@carol` is wrong",
      replyTo: "alice",
      expected: "@alice `@carol` is wrong",
    },
    {
      case: "self-mention removed",
      text: "@bob here is the plan",
      replyTo: "alice",
      expected: "@alice here is the plan",
    },
    {
      case: "self-mention with colon removed",
      text: "@bob: here is the plan",
      replyTo: "alice",
      expected: "@alice here is the plan",
    },
    { case: "self-mention in other case", text: "@BOB here", replyTo: "alice", expected: "@alice here" },
    { case: "self first in a run", text: "@bob, @carol: check", replyTo: "alice", expected: "@carol: check" },
    { case: "self last in a run", text: "@carol, @bob: check", replyTo: "alice", expected: "@carol: check" },
    {
      case: "self in the middle keeps separators",
      text: "@alice, @bob and @carol: go",
      replyTo: "alice",
      expected: "@alice and @carol: go",
    },
    { case: "self twice in a run", text: "@carol @bob @bob go", replyTo: "alice", expected: "@carol go" },
    {
      case: "self-mention in the second paragraph",
      text: "Plan:\n@bob will do it",
      replyTo: "alice",
      expected: "@alice Plan:\nwill do it",
    },
    {
      case: "mid-sentence self-reference stays",
      text: "as @bob I think so",
      replyTo: "alice",
      expected: "@alice as @bob I think so",
    },
    { case: "code fence opens the answer", text: "```\nls\n```", replyTo: "alice", expected: "@alice\n```\nls\n```" },
    { case: "quote opens the answer", text: "> you said\nyes", replyTo: "alice", expected: "@alice\n> you said\nyes" },
    { case: "list opens the answer", text: "- one\n- two", replyTo: "alice", expected: "@alice\n- one\n- two" },
    { case: "only a self-mention", text: "@bob", replyTo: "alice", expected: "" },
    { case: "blank text", text: "  ", replyTo: "alice", expected: "  " },
    { case: "reply target is not an agent", text: "@bob done", replyTo: "ana", expected: "done" },
    { case: "reply target is self", text: "done", replyTo: "bob", expected: "done" },
  ])("$case", ({ text, replyTo, expected }) => {
    expect(addressBack(text, replyTo, "bob", agents)).toBe(expected);
  });
});
