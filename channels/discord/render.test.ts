import { describe, expect, it } from "vitest";
import type { ApprovalCard } from "../../src/world/channel-adapter.js";
import { renderApprovalCard, renderText } from "./render.js";

function card(overrides: Partial<ApprovalCard> = {}): ApprovalCard {
  return {
    approvalId: "m1abc0123456789abcdef",
    shortId: "7f3a",
    agent: "alice",
    tool: "shell_cmd",
    argumentsJson: '{"command":"ls"}',
    argumentsPreview: '{\n  "command": "ls"\n}',
    reason: "shell_cmd needs approval",
    requestedFor: "Ana",
    choices: ["once", "session", "deny"],
    expiresAt: new Date("2026-11-24T10:00:00Z"),
    ...overrides,
  };
}

describe("Discord rendering", () => {
  it("a card: agent, tool, arguments inline, three buttons carrying only the approval id and choice", () => {
    const rendered = renderApprovalCard(card());
    expect(rendered.content).toContain("**alice** wants to run `shell_cmd`");
    expect(rendered.content).toContain('"command": "ls"');
    expect(rendered.files).toEqual([]);
    const row = rendered.components[0] as { components: { label: string; style: number; custom_id: string }[] };
    expect(row.components.map((button) => [button.label, button.style, button.custom_id])).toEqual([
      ["Approve once", 3, "rt:m1abc0123456789abcdef:o"],
      ["For session", 1, "rt:m1abc0123456789abcdef:s"],
      ["Deny", 4, "rt:m1abc0123456789abcdef:d"],
    ]);
  });

  it("a card whose long reason and names would pass 2,000 characters attaches the arguments and stays within the limit", () => {
    const args = JSON.stringify({ command: "echo", args: ["x".repeat(1100)] });
    const rendered = renderApprovalCard(
      card({ argumentsJson: args, reason: "r".repeat(3000), requestedFor: "A".repeat(500) }),
    );
    expect(rendered.content).toContain(`${"r".repeat(400)}…`);
    expect(rendered.content.length).toBeLessThanOrEqual(2000);
    expect(rendered.files.map((file) => file.name)).toEqual(["arguments.json"]);
    expect(JSON.parse(rendered.files[0]?.data ?? "{}")).toEqual(JSON.parse(args));
  });

  it("an agent posting through the bot leads every part with its bold name", () => {
    const parts = renderText("word ".repeat(900).trim(), "Alice");
    expect(parts.length).toBe(3);
    for (const part of parts) {
      expect(part.startsWith("**Alice:** ")).toBe(true);
      expect(part.length).toBeLessThanOrEqual(2000);
    }
  });
});
