import { describe, expect, it } from "vitest";
import { markdownToMrkdwn } from "./mrkdwn.js";
import { splitMrkdwn } from "./split-mrkdwn.js";

describe("markdownToMrkdwn", () => {
  it("escapes &, < and > in text and in code", () => {
    expect(markdownToMrkdwn("if a < b && c > d")).toBe("if a &lt; b &amp;&amp; c &gt; d");
    expect(markdownToMrkdwn("run `a<b>&c`")).toBe("run `a&lt;b&gt;&amp;c`");
    expect(markdownToMrkdwn("```ts\nconst x = a < b;\n```")).toBe("```\nconst x = a &lt; b;\n```");
  });

  it("turns bold, italics, strike, links, headings and bullets into Slack markup", () => {
    expect(markdownToMrkdwn("**bold** and *it* and _it_ and ~~gone~~")).toBe("*bold* and _it_ and _it_ and ~gone~");
    expect(markdownToMrkdwn("see [the docs](https://example.com/a?b=1&c=2)")).toBe(
      "see <https://example.com/a?b=1&c=2|the docs>",
    );
    expect(markdownToMrkdwn("## Plan **now**")).toBe("*Plan now*");
    expect(markdownToMrkdwn("- one\n* two\n1. three")).toBe("• one\n• two\n1. three");
    expect(markdownToMrkdwn("> quoted <b>")).toBe("> quoted &lt;b&gt;");
  });

  it("closes a code fence the model left open", () => {
    expect(markdownToMrkdwn("```\nls")).toBe("```\nls\n```");
  });
});

describe("splitMrkdwn", () => {
  it("cuts at paragraph boundaries below the limit", () => {
    const paragraphs = Array.from({ length: 30 }, (_, index) => `Paragraph ${index} ${"word ".repeat(30)}`.trim());
    const pieces = splitMrkdwn(paragraphs.join("\n\n"), 1000);
    expect(pieces.length).toBeGreaterThan(3);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(1000);
      expect(piece.startsWith("Paragraph")).toBe(true);
    }
    expect(pieces.join("\n\n")).toBe(paragraphs.join("\n\n"));
  });

  it("closes and reopens a code block that is cut", () => {
    const code = `\`\`\`\n${Array.from({ length: 200 }, (_, index) => `line ${index}`).join("\n")}\n\`\`\``;
    const pieces = splitMrkdwn(code, 500);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(500);
      expect(piece.startsWith("```")).toBe(true);
      expect(piece.endsWith("```")).toBe(true);
    }
  });

  it("cuts one very long line at spaces", () => {
    const pieces = splitMrkdwn("word ".repeat(1000).trim(), 300);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(300);
    expect(pieces.join(" ")).toBe("word ".repeat(1000).trim());
  });
});
