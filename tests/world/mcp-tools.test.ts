import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { notesServerCommand } from "../fakes/mcp-notes-command.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("MCP tools through the tool loop", () => {
  it("a real stdio MCP server's tools are offered from the first turn, approved, called, and their results read", async () => {
    const notesDirectory = mkdtempSync(path.join(tmpdir(), "rt-notes-"));
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool" && last.toolName === "notes__add")
        return { toolCalls: [{ name: "notes__list", args: {} }] };
      if (last?.role === "tool") return { text: `notes: ${last.text}` };
      return { toolCalls: [{ name: "notes__add", args: { text: "ship on friday" } }] };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["notes__*"] }],
      platform: "telegram",
      tools: {
        mcpServers: { notes: { ...notesServerCommand(), env: { NOTES_DIR: notesDirectory } } },
        approval: { notes__list: "never" },
      },
    });
    await harness.say("@alice remember: ship on friday", { user: "ana" });
    await harness.idle();
    // The tools were offered with the server's names, prefixed.
    const offered = alice.requests[0]?.tools.map((tool) => tool.name) ?? [];
    expect(offered).toContain("notes__add");
    expect(offered).toContain("notes__list");
    // notes__add needs approval (the default); notes__list is configured `never`.
    const [card] = harness.channel.cards();
    expect(card?.card).toMatchObject({ tool: "notes__add", argumentsJson: '{"text":"ship on friday"}' });
    await harness.click(card?.card.approvalId ?? "", "once", { user: "ana" });
    await harness.idle();
    expect(harness.channel.cards()).toHaveLength(1);
    expect(harness.channel.messages().at(-1)?.text).toMatch(/^notes: .*ship on friday/);
  });

  it("an MCP error result reaches the model as `error: …`", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: last.text };
      return { toolCalls: [{ name: "notes__fail", args: {} }] };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["notes__fail"] }],
      tools: { mcpServers: { notes: notesServerCommand() }, approval: { "notes__*": "never" } },
    });
    await harness.say("@alice try");
    await harness.idle();
    expect(harness.channel.messages().at(-1)?.text).toMatch(/^error: /);
  });
});
