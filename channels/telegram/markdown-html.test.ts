import { describe, expect, it } from "vitest";
import { escapeHtml, markdownToTelegramHtml } from "./markdown-html.js";

describe("markdownToTelegramHtml", () => {
  it.each([
    ["a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"],
    ["<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    ["&amp; stays literal", "&amp;amp; stays literal"],
    ["**bold** and __bold__", "<b>bold</b> and <b>bold</b>"],
    ["*italic* and _italic_", "<i>italic</i> and <i>italic</i>"],
    ["~~gone~~", "<s>gone</s>"],
    ["**a < b**", "<b>a &lt; b</b>"],
    ["*a **b** c*", "<i>a <b>b</b> c</i>"],
    ["`x < y && z`", "<code>x &lt; y &amp;&amp; z</code>"],
    ["``a ` b``", "<code>a ` b</code>"],
    ['[docs](https://example.com/?a=1&b="2")', '<a href="https://example.com/?a=1&amp;b=&quot;2&quot;">docs</a>'],
    ["[bad](javascript:alert(1))", "[bad](javascript:alert(1))"],
    ["# Title <x>", "<b>Title &lt;x&gt;</b>"],
    ["> quoted\n> more\nplain", "<blockquote>quoted\nmore</blockquote>\nplain"],
    [
      "```ts\nif (a < b && c) {}\n```\nafter",
      '<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {}</code></pre>\nafter',
    ],
    ["```\nno language <\n```", "<pre>no language &lt;</pre>"],
    ["```\nunclosed fence <", "<pre>unclosed fence &lt;</pre>"],
  ])("%j → %j", (markdown, html) => {
    expect(markdownToTelegramHtml(markdown)).toBe(html);
  });

  it.each([
    ["unbalanced *star", "unbalanced *star"],
    ["unbalanced **double", "unbalanced **double"],
    ["a ** b", "a ** b"],
    ["5 * 3 = 15 and 4 * 2", "5 * 3 = 15 and 4 * 2"],
    ["snake_case_name", "snake_case_name"],
    ["* item\n* other", "* item\n* other"],
    ["`unclosed code", "`unclosed code"],
    ["[not a link", "[not a link"],
    ["___", "___"],
    ["*", "*"],
  ])("leaves the unbalanced marker in %j literal", (markdown, html) => {
    expect(markdownToTelegramHtml(markdown)).toBe(html);
  });

  it("escapes exactly the three characters Telegram reserves", () => {
    expect(escapeHtml(`<>&"'`)).toBe(`&lt;&gt;&amp;"'`);
  });
});
