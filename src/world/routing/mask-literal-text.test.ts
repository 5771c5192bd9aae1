import { describe, expect, it } from "vitest";
import { maskCharacter, maskLiteralText } from "./mask-literal-text.js";

/** Shows masked characters as `#` so expectations stay readable. */
function masked(text: string): string {
  return maskLiteralText(text).replaceAll(maskCharacter, "#");
}

describe("maskLiteralText", () => {
  it.each([
    { case: "nothing to mask", text: "@alice hi", expected: "@alice hi" },
    { case: "inline code", text: "a `@b` c", expected: "a #### c" },
    { case: "double backticks hold a single one", text: "``a`b`` @c", expected: "####### @c" },
    { case: "unmatched backtick", text: "it`s @c", expected: "it`s @c" },
    { case: "fence keeps newlines", text: "```\n@a\n```\n@b", expected: "###\n##\n###\n@b" },
    { case: "fence closed at line end", text: "```x\n@a```\n@b", expected: "####\n#####\n@b" },
    { case: "unclosed fence runs to the end", text: "```\n@a\n@b", expected: "###\n##\n##" },
    { case: "unclosed mid-line run is literal", text: "a ``` @b", expected: "a ``` @b" },
    { case: "tilde fence", text: "~~~\n@a\n~~~\n@b", expected: "###\n##\n###\n@b" },
    { case: "tildes mid-line are literal", text: "a ~~~ @b", expected: "a ~~~ @b" },
    { case: "URL", text: "see https://x.com/@a now", expected: "see ################ now" },
    { case: "www URL", text: "www.x.com/@a @b", expected: "############ @b" },
  ])("$case", ({ text, expected }) => {
    expect(masked(text)).toBe(expected);
    expect(maskLiteralText(text)).toHaveLength(text.length);
  });
});
