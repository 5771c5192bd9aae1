import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolsConfigSchema } from "../../src/config/schema.js";
import { silentLogger } from "../../src/log/logger.js";
import type { ToolDefinition } from "../../src/providers/model-provider.js";
import { type OpenedTools, openTools } from "../../src/tools/open-tools.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import type { ToolOutcome, ToolRunContext, ToolSource } from "../../src/tools/tool-source.js";
import { notesServerCommand } from "../fakes/mcp-notes-command.js";

let workdir: string;
let tools: OpenedTools;

beforeAll(async () => {
  workdir = await mkdtemp(path.join(tmpdir(), "roundtable-registry-"));
  const config = toolsConfigSchema.parse({
    mcpServers: {
      notes: { ...notesServerCommand() },
      down: { command: path.join(workdir, "no-such-server") },
    },
  });
  tools = await openTools(config, silentLogger(), { retry: { initialDelayMs: 60_000 }, connectTimeoutMs: 20_000 });
});

afterAll(async () => {
  await tools.close();
  await rm(workdir, { recursive: true, force: true });
});

const context = (): ToolRunContext => ({ workdir, signal: new AbortController().signal, timeoutMs: 60_000 });
const names = (definitions: ToolDefinition[]) => definitions.map((definition) => definition.name);

describe("ToolRegistry", () => {
  it("offers shell_cmd and the connected servers' tools, none of a server that is down", () => {
    expect(names(tools.registry.all())).toEqual([
      "shell_cmd",
      "notes__add",
      "notes__list",
      "notes__fail",
      "notes__slow",
      "notes__picture",
      "notes__report",
      "notes__env",
      "notes__crash",
    ]);
    expect(tools.mcp.statuses().map((status) => [status.name, status.state])).toEqual([
      ["notes", "connected"],
      ["down", "failed"],
    ]);
  });

  it("expands notes__* to the whole server and takes exact names as they are, in list order, once each", () => {
    expect(names(tools.registry.toolsForAgent(["notes__*"]))).toEqual([
      "notes__add",
      "notes__list",
      "notes__fail",
      "notes__slow",
      "notes__picture",
      "notes__report",
      "notes__env",
      "notes__crash",
    ]);
    expect(names(tools.registry.toolsForAgent(["notes__list", "shell_cmd", "notes__*", "notes__list"]))).toEqual([
      "notes__list",
      "shell_cmd",
      "notes__add",
      "notes__fail",
      "notes__slow",
      "notes__picture",
      "notes__report",
      "notes__env",
      "notes__crash",
    ]);
    expect(names(tools.registry.toolsForAgent(["notes__add", "down__*", "notes__nope"]))).toEqual(["notes__add"]);
    expect(tools.registry.toolsForAgent([])).toEqual([]);
  });

  it("names the entries of an agent's list that match no tool offered now", () => {
    expect(tools.registry.unmatchedEntries(["shell_cmd", "notes__*", "notes__nope", "down__*", "down__x"])).toEqual([
      "notes__nope",
      "down__*",
      "down__x",
    ]);
  });

  it("finds a tool and its source", () => {
    expect(tools.registry.find("notes__add")?.definition.description).toBe("Add a note.");
    expect(tools.registry.find("notes__nope")).toBeUndefined();
  });

  describe("check", () => {
    it("accepts arguments that fit the schema", () => {
      expect(tools.registry.check("shell_cmd", '{"command":"ls","args":["-l"]}')).toEqual({
        ok: true,
        args: { command: "ls", args: ["-l"] },
      });
      expect(tools.registry.check("notes__list", "")).toEqual({ ok: true, args: {} });
    });

    it("names the problem: wrong type, missing, extra, not JSON, not an object", () => {
      expect(tools.registry.check("shell_cmd", '{"command":1}')).toEqual({
        ok: false,
        problem: "/command must be string",
      });
      expect(tools.registry.check("shell_cmd", '{"command":"ls","args":"-l"}')).toEqual({
        ok: false,
        problem: "/args must be array",
      });
      expect(tools.registry.check("shell_cmd", '{"command":"ls","shell":true}')).toEqual({
        ok: false,
        problem: 'arguments must NOT have additional properties: "shell"',
      });
      expect(tools.registry.check("notes__add", "{}")).toEqual({
        ok: false,
        problem: "arguments must have required property 'text'",
      });
      const notJson = tools.registry.check("notes__add", '{"text": "a"');
      expect(notJson.ok).toBe(false);
      expect(notJson.ok ? "" : notJson.problem).toMatch(/^arguments are not valid JSON: /);
      expect(tools.registry.check("notes__add", '["a"]')).toEqual({
        ok: false,
        problem: "arguments must be a JSON object, got an array",
      });
    });

    it("refuses unknown tools, saying when their server is down", () => {
      expect(tools.registry.check("nope", "{}")).toEqual({ ok: false, problem: 'unknown tool "nope"' });
      expect(tools.registry.check("notes__nope", "{}")).toEqual({
        ok: false,
        problem: 'unknown tool "notes__nope" (MCP server notes offers no such tool)',
      });
      const down = tools.registry.check("down__search", "{}");
      expect(down.ok ? "" : down.problem).toMatch(/^unknown tool "down__search" \(MCP server down is failed: .*ENOENT/);
    });

    it("refuses a tool outside the agent's list when the list is given", () => {
      expect(tools.registry.check("shell_cmd", '{"command":"ls"}', ["notes__*"])).toEqual({
        ok: false,
        problem: 'tool "shell_cmd" is not offered to this agent',
      });
      expect(tools.registry.check("notes__list", "{}", ["notes__*"]).ok).toBe(true);
    });
  });

  it("dispatches calls to the source that offers the tool", async () => {
    expect(await tools.registry.call("shell_cmd", { command: "echo", args: ["hi"] }, context())).toEqual({
      kind: "ok",
      text: "exit code: 0\nstdout:\nhi\nstderr: (empty)",
    });
    expect(await tools.registry.call("notes__add", { text: "via registry" }, context())).toEqual({
      kind: "ok",
      text: "added note 1",
    });
    expect(await tools.registry.call("nope", {}, context())).toEqual({ kind: "failed", text: 'unknown tool "nope"' });
  });

  it("turns a source that throws into a failed outcome, and lets the first source win a name clash", async () => {
    const throwing: ToolSource = {
      list: () => [{ name: "boom", description: "throws", inputSchema: { type: "object" } }],
      call: async (): Promise<ToolOutcome> => {
        throw new Error("kaput");
      },
      close: async () => {},
    };
    const second: ToolSource = {
      list: () => [{ name: "boom", description: "second", inputSchema: { type: "object" } }],
      call: async () => ({ kind: "ok", text: "second" }),
      close: async () => {},
    };
    const registry = new ToolRegistry([throwing, second]);
    expect(registry.all().map((definition) => definition.description)).toEqual(["throws"]);
    expect(await registry.call("boom", {}, context())).toEqual({ kind: "failed", text: "boom failed: kaput" });
  });
});
