import { describe, expect, it } from "vitest";
import { renderApprovalLine } from "../../channels/console/render.js";
import { renderApprovalCard as renderDiscordCard } from "../../channels/discord/render.js";
import { renderApprovalCard as renderSlackCard } from "../../channels/slack/render.js";
import { renderApprovalCard as renderTelegramCard, cardArgumentsFile } from "../../channels/telegram/render.js";
import { toWebCard } from "../../channels/web/render.js";
import type { ApprovalCard } from "../../src/world/approval-types.js";
import { parseTelegramHtml } from "../fakes/telegram-html.js";

/** A command whose name reads `gnp.sh` backwards behind U+202E, with a zero-width space and a bell. */
const args = { command: "rm", args: ["-rf", "/tmp/\u202Ehs.gnp", "a\u200Bb", "\u0007", "line\u2028sep"] };

function card(value: unknown = args): ApprovalCard {
  return {
    approvalId: "ap1",
    shortId: "7f3a",
    agent: "alice",
    tool: "shell_cmd",
    argumentsJson: JSON.stringify(value),
    argumentsPreview: JSON.stringify(value, null, 2),
    reason: "",
    requestedFor: "Ana",
    choices: ["once", "session", "deny"],
    expiresAt: new Date("2026-11-24T08:00:00Z"),
  };
}

const escapes = ["\\u202e", "\\u200b", "\\u0007", "\\u2028"];
const rawCharacters = ["\u202E", "\u200B", "\u0007", "\u2028"];
const notice = /the arguments contain invisible characters/i;

function expectShown(text: string): void {
  for (const escaped of escapes) expect(text).toContain(escaped);
  for (const character of rawCharacters) expect(text).not.toContain(character);
  expect(text).toMatch(notice);
}

describe("invisible characters on every card", () => {
  it("Telegram: escapes in the card's HTML and in the attached file, plus the line saying so", () => {
    const { html } = renderTelegramCard(card());
    const parsed = parseTelegramHtml(html);
    expect(parsed).toMatchObject({ ok: true });
    if (parsed.ok) expectShown(parsed.text);
    const long = card({ ...args, pad: "x".repeat(4000) });
    const file = cardArgumentsFile(long);
    expect(file?.content).toContain("\\u202e");
    expect(JSON.parse(file?.content ?? "")).toEqual({ ...args, pad: "x".repeat(4000) });
    expect(parseTelegramHtml(renderTelegramCard(long).html)).toMatchObject({ text: expect.stringMatching(notice) });
  });

  it("Slack: escapes in the blocks, plus the line", () => {
    const rendered = renderSlackCard(card());
    expectShown(JSON.stringify(rendered.blocks).replaceAll("\\\\", "\\"));
  });

  it("Discord: escapes in the content, plus the line", () => {
    expectShown(renderDiscordCard(card()).content);
  });

  it("console and web: escapes in the line and the card, plus the line", () => {
    expectShown(renderApprovalLine(card()));
    const web = toWebCard(card(), new Map());
    expectShown(`${web.argumentsJson}\n${web.invisibleNotice}`);
  });

  it("arguments without such characters get no line", () => {
    const plain = card({ command: "echo", args: ["hello\tworld\n"] });
    expect(renderDiscordCard(plain).content).not.toMatch(notice);
    expect(renderApprovalLine(plain)).not.toMatch(notice);
    expect(toWebCard(plain, new Map()).invisibleNotice).toBeUndefined();
  });
});
