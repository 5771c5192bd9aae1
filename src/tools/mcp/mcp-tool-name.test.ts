import { describe, expect, it } from "vitest";
import { maxToolNameLength, mcpToolName } from "./mcp-tool-name.js";

describe("mcpToolName", () => {
  it("joins server and tool with __", () => {
    expect(mcpToolName("notes", "add")).toBe("notes__add");
    expect(mcpToolName("git-hub", "create_issue")).toBe("git-hub__create_issue");
  });

  it("keeps only letters, digits, _ and -", () => {
    expect(mcpToolName("notes", "files.read/all ä")).toBe("notes__files_read_all__");
  });

  it("shortens long names stably and keeps them apart", () => {
    const one = mcpToolName("server", "a".repeat(80));
    const two = mcpToolName("server", `${"a".repeat(79)}b`);
    expect(one).toHaveLength(maxToolNameLength);
    expect(one).toMatch(/^server__a+_[0-9a-f]{8}$/);
    expect(two).not.toBe(one);
    expect(mcpToolName("server", "a".repeat(80))).toBe(one);
  });
});
