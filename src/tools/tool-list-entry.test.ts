import { describe, expect, it } from "vitest";
import { toolsConfigSchema } from "../config/schema.js";
import { checkToolName } from "../config/tool-names.js";
import { serverOfToolName, toolEntryMatches, wholeServerOf } from "./tool-list-entry.js";

describe("tool list entries", () => {
  it("match exact names and whole servers", () => {
    expect(toolEntryMatches("notes__add", "notes__add")).toBe(true);
    expect(toolEntryMatches("notes__*", "notes__add")).toBe(true);
    expect(toolEntryMatches("notes__*", "notes2__add")).toBe(false);
    expect(toolEntryMatches("note__*", "notes__add")).toBe(false);
    expect(toolEntryMatches("notes__add", "notes__addition")).toBe(false);
    expect(toolEntryMatches("shell_cmd", "shell_cmd")).toBe(true);
    expect(toolEntryMatches("__*", "__x")).toBe(false);
  });

  it("take names apart", () => {
    expect(wholeServerOf("notes__*")).toBe("notes");
    expect(wholeServerOf("notes__add")).toBeUndefined();
    expect(serverOfToolName("notes__add")).toBe("notes");
    expect(serverOfToolName("shell_cmd")).toBeUndefined();
  });

  it("say whether an agent's entry can name a tool of the config", () => {
    const tools = toolsConfigSchema.parse({ mcpServers: { notes: { command: "notes" } } });
    const isKnownToolEntry = (entry: string, config: typeof tools) => checkToolName(entry, config) === undefined;
    expect(isKnownToolEntry("shell_cmd", tools)).toBe(true);
    expect(isKnownToolEntry("notes__*", tools)).toBe(true);
    expect(isKnownToolEntry("notes__add", tools)).toBe(true);
    expect(isKnownToolEntry("search__*", tools)).toBe(false);
    expect(isKnownToolEntry("bash", tools)).toBe(false);
    const noShell = toolsConfigSchema.parse({ shell: { enabled: false } });
    expect(isKnownToolEntry("shell_cmd", noShell)).toBe(false);
  });
});
