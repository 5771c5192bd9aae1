import { describe, expect, it } from "vitest";
import { markdownToTelegramHtml } from "../../channels/telegram/markdown-html.js";
import {
  renderApprovalCard,
  renderApprovalOutcome,
  renderText,
  telegramMessageLimit,
} from "../../channels/telegram/render.js";
import { parseTelegramHtml } from "../fakes/telegram-html.js";

/** Text with every character that breaks naive HTML, and markers that pair up nowhere. */
const hostile = [
  "if a<b & c>d then *maybe",
  "**<b>not a tag</b>**",
  "_x_y_ ~~~ ``` ` ` **",
  "[x](https://a.b/<c>&d) & <a href='x'>",
  "&#65; &lt; & &amp;",
  "😀 * 😀 ** 😀 _ 😀",
  '```html\n<div class="x">&nbsp;</div>\n```',
  "> quote with <tag> & stuff\n# heading & <more>",
];

describe("Telegram HTML rendering, checked by the fake's strict parser", () => {
  it.each(hostile)("renders %j as HTML Telegram accepts", (markdown) => {
    const html = markdownToTelegramHtml(markdown);
    const parsed = parseTelegramHtml(html);
    expect(parsed.ok, html).toBe(true);
  });

  it("shows text without Markdown exactly as written", () => {
    const plain = "a < b & c > d; x <= y && z; 3 * 4; *open; **also open; `tick; [bracket; &amp;";
    expect(parseTelegramHtml(markdownToTelegramHtml(plain))).toMatchObject({ ok: true, text: plain });
  });

  it("the strict parser really refuses what Telegram refuses", () => {
    expect(parseTelegramHtml("a < b").ok).toBe(false);
    expect(parseTelegramHtml("a & b").ok).toBe(false);
    expect(parseTelegramHtml("<b>open").ok).toBe(false);
    expect(parseTelegramHtml("<b><i>x</b></i>").ok).toBe(false);
    expect(parseTelegramHtml("<div>x</div>").ok).toBe(false);
  });

  it("splits long answers into parts of at most 4096 visible characters, each with the bold name", () => {
    const text = Array.from(
      { length: 40 },
      (_, index) => `Paragraph ${index}: ${"a<b & c ".repeat(40).trimEnd()}`,
    ).join("\n\n");
    const parts = renderText(text, "bob");
    expect(parts.length).toBeGreaterThan(2);
    const visible = parts.map((part) => {
      const parsed = parseTelegramHtml(part.html);
      if (!parsed.ok) throw new Error(parsed.error);
      expect(parsed.text.length).toBeLessThanOrEqual(telegramMessageLimit);
      expect(parsed.entities[0]).toEqual({ type: "bold", offset: 0, length: 4 });
      return parsed.text.slice("bob: ".length);
    });
    expect(visible.join("\n\n")).toBe(text);
  });

  it("renders a card with escaped arguments and an outcome without buttons", () => {
    const { html, keyboard } = renderApprovalCard({
      approvalId: "abc123",
      shortId: "7f3a",
      agent: "a<lice>",
      tool: "shell_cmd",
      argumentsJson: "{}",
      argumentsPreview: '{"q": "a<b&c"}',
      reason: "needs <approval>",
      requestedFor: "Ana & Bo",
      choices: ["once", "deny"],
      expiresAt: new Date("2026-01-01T10:00:00Z"),
    });
    const parsed = parseTelegramHtml(html);
    expect(parsed).toMatchObject({ ok: true });
    if (!parsed.ok) return;
    expect(parsed.text).toContain('a<lice> wants to run shell_cmd\n{"q": "a<b&c"}');
    expect(parsed.text).toContain("Asked for Ana & Bo");
    expect(keyboard.inline_keyboard.map((row) => row.map((button) => button.text))).toEqual([
      ["✅ Approve once"],
      ["❌ Deny"],
    ]);
    const outcome = renderApprovalOutcome({
      approvalId: "abc123",
      shortId: "7f3a",
      agent: "alice",
      tool: "shell_cmd",
      argumentsPreview: "x".repeat(5000),
      state: "approved",
      choice: "once",
      decidedBy: { id: "1", name: "<Ana>" },
      at: new Date(),
    });
    const parsedOutcome = parseTelegramHtml(outcome);
    expect(parsedOutcome).toMatchObject({ ok: true });
    if (parsedOutcome.ok) {
      expect(parsedOutcome.text.startsWith("✅ Approved once by <Ana>")).toBe(true);
      expect(parsedOutcome.text.length).toBeLessThanOrEqual(telegramMessageLimit);
    }
  });
});
