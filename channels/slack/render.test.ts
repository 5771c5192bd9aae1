import { describe, expect, it } from "vitest";
import type { ApprovalCard } from "../../src/world/channel-adapter.js";
import { renderApprovalCard } from "./render.js";

function card(args: unknown): ApprovalCard {
  const json = JSON.stringify(args);
  return {
    approvalId: "ap1",
    shortId: "7f3a",
    agent: "alice",
    tool: "shell_cmd",
    argumentsJson: json,
    // What the world shows: cut at 1,000 characters.
    argumentsPreview: `${JSON.stringify(args, null, 2).slice(0, 999)}…`,
    reason: "",
    requestedFor: "Ana",
    choices: ["once", "session", "deny"],
    expiresAt: new Date("2026-11-24T08:00:00Z"),
  };
}

const text = (blocks: unknown[]): string => JSON.stringify(blocks);

describe("renderApprovalCard", () => {
  it("shows arguments that fit the card whole, even past the world's short preview, escaped", () => {
    const rendered = renderApprovalCard(card({ command: "echo", args: ["<&>", "y".repeat(1500)] }));
    expect(rendered.attachment).toBeUndefined();
    expect(text(rendered.blocks)).toContain("y".repeat(1500));
    expect(text(rendered.blocks)).toContain("&lt;&amp;&gt;");
    expect(text(rendered.blocks)).not.toContain("attached");
  });

  it("cuts arguments too long for a section, says so, and attaches every byte", () => {
    const args = { command: "echo", args: ["<".repeat(3000)] };
    const rendered = renderApprovalCard(card(args));
    for (const block of rendered.blocks) {
      const blockText = (block as { text?: { text: string } }).text?.text ?? "";
      expect(blockText.length).toBeLessThanOrEqual(3000);
    }
    expect(text(rendered.blocks)).toMatch(/The arguments are 3,0\d\d characters long; they are attached in full/);
    expect(JSON.parse(rendered.attachment?.content ?? "")).toEqual(args);
  });
});
