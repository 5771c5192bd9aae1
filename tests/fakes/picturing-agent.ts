import { notesServerCommand } from "./mcp-notes-command.js";
import { ScriptedProvider } from "./scripted-provider.js";

/** A model that calls the notes server's `picture` tool, then answers `answer` after its result. */
export function picturingAgent(answer = "here is the chart"): ScriptedProvider {
  return new ScriptedProvider((request) =>
    request.messages.at(-1)?.role === "tool" ? { text: answer } : { toolCalls: [{ name: "notes__picture", args: {} }] },
  );
}

/** The notes MCP server (stdio), its tools run without approval. */
export function notesWithoutApproval() {
  return { mcpServers: { notes: notesServerCommand() }, approval: { "notes__*": "never" as const } };
}
