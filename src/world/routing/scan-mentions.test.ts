import { describe, expect, it } from "vitest";
import { scanMentions } from "./scan-mentions.js";
import { uniqueNames } from "./unique-names.js";

/** Every name a message mentions anywhere: lowercased, first mention first, each once. */
const mentionedNames = (text: string) => uniqueNames(scanMentions(text).mentions.map((mention) => mention.name));

describe("scanMentions: every mention", () => {
  it.each([
    { case: "mid-sentence", text: "ask @bob later", expected: ["bob"] },
    {
      case: "addresses and references in order",
      text: "@alice ask @Bob and @carol",
      expected: ["alice", "bob", "carol"],
    },
    { case: "dedupe", text: "@bob, then @BOB again", expected: ["bob"] },
    { case: "trailing punctuation", text: "thanks @alice!", expected: ["alice"] },
    { case: "in parentheses", text: "(cc @alice)", expected: ["alice"] },
    { case: "possessive", text: "see @bob's patch", expected: ["bob"] },
    { case: "quoted line", text: "> @alice said so", expected: ["alice"] },
    { case: "inline code", text: "run `ping @alice` now", expected: [] },
    { case: "fenced code", text: "```\nhi @alice\n```", expected: [] },
    { case: "e-mail address", text: "write to bob@example.com", expected: [] },
    { case: "e-mail without a dot", text: "log in as root@localhost", expected: [] },
    { case: "@ after a slash without scheme", text: "her page x.com/@alice", expected: [] },
    { case: "@ after a full stop", text: "end.@alice", expected: [] },
    { case: "URL", text: "see https://x.com/@alice?tab=1 and @bob", expected: ["bob"] },
    { case: "www URL", text: "see www.x.com/@alice", expected: [] },
    { case: "npm scope", text: "bump @types/node", expected: [] },
    { case: "names with - and _", text: "ping @release-bot and @qa_team.", expected: ["release-bot", "qa_team"] },
  ])("$case", ({ text, expected }) => {
    expect(mentionedNames(text)).toEqual(expected);
  });
});
