import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type McpServerConfig, toolsConfigSchema } from "../../src/config/schema.js";
import { connectMcpServers, type McpManager } from "../../src/tools/mcp/mcp-manager.js";
import { McpServerSource, type McpServerSourceOptions } from "../../src/tools/mcp/mcp-server-source.js";
import type { ToolRunContext } from "../../src/tools/tool-source.js";
import { notesServerCommand } from "../fakes/mcp-notes-command.js";
import { onePixelPng, reportCsvBase64 } from "../fakes/mcp-notes-tools.js";
import { capturedLogger, errorLevel } from "./captured-logger.js";
import { waitUntil } from "./wait-until.js";

let notesDirectory: string;
const opened: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  notesDirectory = await mkdtemp(path.join(tmpdir(), "roundtable-notes-"));
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
  await rm(notesDirectory, { recursive: true, force: true });
});

function notesConfig(extra: Record<string, unknown> = {}): McpServerConfig {
  const tools = toolsConfigSchema.parse({
    mcpServers: {
      notes: { ...notesServerCommand(), env: { NOTES_DIR: notesDirectory, NOTES_TAG: "tagged" }, ...extra },
    },
  });
  const config = tools.mcpServers.notes;
  if (!config) throw new Error("no notes config");
  return config;
}

async function connectNotes(
  extra: Record<string, unknown> = {},
  options: Partial<McpServerSourceOptions> = {},
): Promise<McpServerSource> {
  const source = new McpServerSource({
    name: "notes",
    config: notesConfig(extra),
    defaultTimeoutMs: 20_000,
    connectTimeoutMs: 20_000,
    logger: capturedLogger().logger,
    retry: { initialDelayMs: 60_000 },
    ...options,
  });
  opened.push(source);
  await source.connect();
  return source;
}

function context(signal = new AbortController().signal): ToolRunContext {
  return { workdir: notesDirectory, signal, timeoutMs: 60_000 };
}

describe("MCP over stdio", () => {
  // One server for the tests that only read or add, started once: a start costs about a second.
  let shared: McpServerSource;
  let sharedNotes: string;
  const savedKey = process.env.OPENAI_API_KEY;
  beforeAll(async () => {
    process.env.OPENAI_API_KEY = "sk-never-passed";
    sharedNotes = await mkdtemp(path.join(tmpdir(), "roundtable-shared-notes-"));
    shared = new McpServerSource({
      name: "notes",
      config: notesConfig({ env: { NOTES_DIR: sharedNotes, NOTES_TAG: "tagged" }, timeout: "300ms" }),
      defaultTimeoutMs: 20_000,
      connectTimeoutMs: 20_000,
      logger: capturedLogger().logger,
      retry: { initialDelayMs: 60_000 },
    });
    await shared.connect();
  });
  afterAll(async () => {
    await shared.close();
    await rm(sharedNotes, { recursive: true, force: true });
    if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = savedKey;
  });

  it("lists the server's tools as <server>__<tool> with their description and schema", () => {
    expect(shared.status()).toEqual({ name: "notes", transport: "stdio", state: "connected", toolCount: 8 });
    const names = shared.list().map((tool) => tool.name);
    expect(names).toEqual([
      "notes__add",
      "notes__list",
      "notes__fail",
      "notes__slow",
      "notes__picture",
      "notes__report",
      "notes__env",
      "notes__crash",
    ]);
    const add = shared.list().find((tool) => tool.name === "notes__add");
    expect(add?.description).toBe("Add a note.");
    expect(add?.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
  });

  it("calls tools and returns their text", async () => {
    expect(await shared.call("notes__add", { text: "first" }, context())).toEqual({ kind: "ok", text: "added note 1" });
    expect(await shared.call("notes__add", { text: "second" }, context())).toEqual({
      kind: "ok",
      text: "added note 2",
    });
    expect(await shared.call("notes__list", {}, context())).toEqual({ kind: "ok", text: "1. first\n2. second" });
  });

  it("turns an isError result into an error outcome with the server's text", async () => {
    expect(await shared.call("notes__fail", { message: "disk full" }, context())).toEqual({
      kind: "error",
      text: "disk full",
    });
  });

  it("answers a call of a tool the server does not have", async () => {
    expect(await shared.call("notes__nope", {}, context())).toEqual({
      kind: "failed",
      text: "notes__nope is not offered by MCP server notes",
    });
  });

  it("describes non-text content briefly, and gives images and resource blobs as files", async () => {
    const bytes = Buffer.from(onePixelPng, "base64");
    expect(await shared.call("notes__picture", {}, context())).toEqual({
      kind: "ok",
      text: `a dot\n[image image/png, ${bytes.length} bytes]`,
      files: [{ name: "image-1.png", bytes: new Uint8Array(bytes), mimeType: "image/png" }],
    });
    const csv = Buffer.from(reportCsvBase64, "base64");
    expect(await shared.call("notes__report", {}, context())).toEqual({
      kind: "ok",
      text: `the report\n[resource file:///reports/q3%20sales.csv text/csv, ${csv.length} bytes]`,
      files: [{ name: "q3 sales.csv", bytes: new Uint8Array(csv), mimeType: "text/csv" }],
    });
  });

  it("gives the server the SDK's default environment plus its env, never the service's secrets", async () => {
    expect((await shared.call("notes__env", { name: "OPENAI_API_KEY" }, context())).text).toBe("(unset)");
    expect((await shared.call("notes__env", { name: "NOTES_TAG" }, context())).text).toBe("tagged");
    expect((await shared.call("notes__env", { name: "PATH" }, context())).text).toBe(process.env.PATH);
  });

  it("times out a slow call (the server's timeout overrides tools.mcpTimeout), and goes on working", async () => {
    expect(await shared.call("notes__slow", { ms: 10_000 }, context())).toEqual({
      kind: "timeout",
      text: "MCP server notes did not answer within 0.3s",
    });
    expect(await shared.call("notes__slow", { ms: 0 }, context())).toEqual({ kind: "ok", text: "slept 0 ms" });
    expect(shared.status().state).toBe("connected");
  });

  it("gives failed when the service stops during a call", async () => {
    const controller = new AbortController();
    const running = shared.call("notes__slow", { ms: 10_000 }, context(controller.signal));
    controller.abort();
    expect(await running).toEqual({
      kind: "failed",
      text: "stopped while MCP server notes was running the call: the service is stopping",
    });
    expect(await shared.call("notes__slow", { ms: 0 }, context())).toEqual({ kind: "ok", text: "slept 0 ms" });
  });

  it("fails the call in flight when the server dies, never re-runs it, and reconnects on the next call", async () => {
    const source = await connectNotes();
    await source.call("notes__add", { text: "kept" }, context());
    expect(await source.call("notes__crash", {}, context())).toEqual({
      kind: "failed",
      text: "MCP server notes closed the connection during the call; the call is not repeated",
    });
    expect(source.status().state).toBe("connecting");
    expect(source.list().map((tool) => tool.name)).toContain("notes__add");
    expect(await source.call("notes__list", {}, context())).toEqual({ kind: "ok", text: "1. kept" });
    expect(source.status()).toMatchObject({ state: "connected", toolCount: 8 });
    expect(await readFile(path.join(notesDirectory, "crashes.log"), "utf8")).toBe("crash\n");
    await source.close();
    expect(source.status()).toMatchObject({ state: "closed", toolCount: 0 });
    expect(source.list()).toEqual([]);
    expect((await source.call("notes__list", {}, context())).kind).toBe("failed");
  });

  it("reconnects a server that died in the background", async () => {
    const source = await connectNotes({}, { retry: { initialDelayMs: 50 } });
    await source.call("notes__crash", {}, context());
    await waitUntil("the server is connected again", () => source.status().state === "connected");
    expect(await source.call("notes__add", { text: "after" }, context())).toEqual({ kind: "ok", text: "added note 1" });
    expect(await readFile(path.join(notesDirectory, "crashes.log"), "utf8")).toBe("crash\n");
  });
});

describe("a server that never answers", () => {
  const silent: McpServerConfig = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], env: {} };

  it("fails when it does not start within the connect timeout", async () => {
    const source = new McpServerSource({
      name: "silent",
      config: silent,
      defaultTimeoutMs: 20_000,
      connectTimeoutMs: 300,
      logger: capturedLogger().logger,
      retry: { initialDelayMs: 60_000 },
    });
    opened.push(source);
    await source.connect();
    expect(source.status()).toMatchObject({ state: "failed", toolCount: 0 });
    expect(source.status().error).toContain("Request timed out");
  });

  it("can be closed while it is still starting", async () => {
    const source = new McpServerSource({
      name: "silent",
      config: silent,
      defaultTimeoutMs: 20_000,
      connectTimeoutMs: 120_000,
      logger: capturedLogger().logger,
    });
    const connecting = source.connect();
    expect(source.status().state).toBe("connecting");
    await source.close();
    await connecting;
    expect(source.status()).toMatchObject({ state: "closed", toolCount: 0 });
  });
});

describe("connectMcpServers", () => {
  let manager: McpManager | undefined;
  afterEach(async () => {
    await manager?.close();
    manager = undefined;
  });

  it("logs a server that cannot start, shows it failed, and leaves the others working", async () => {
    const { logger, lines } = capturedLogger();
    const tools = toolsConfigSchema.parse({
      mcpServers: {
        broken: { command: path.join(notesDirectory, "no-such-server") },
        early: {
          command: process.execPath,
          args: ["-e", "process.stderr.write('boom: no config file\\n'); process.exit(2)"],
        },
        notes: { ...notesServerCommand(), env: { NOTES_DIR: notesDirectory } },
      },
      mcpTimeout: "400ms",
    });
    manager = await connectMcpServers(tools, logger, { retry: { initialDelayMs: 60_000 }, connectTimeoutMs: 20_000 });
    const [broken, early, notes] = manager.statuses();
    expect(broken).toMatchObject({ name: "broken", state: "failed", toolCount: 0 });
    expect(broken?.error).toContain("ENOENT");
    expect(early).toMatchObject({ name: "early", state: "failed", toolCount: 0 });
    expect(early?.error).toContain("boom: no config file");
    expect(notes).toEqual({ name: "notes", transport: "stdio", state: "connected", toolCount: 8 });
    const errors = lines.filter((line) => line.level === errorLevel).map((line) => line.msg);
    expect(errors).toHaveLength(2);
    expect(errors.find((message) => message.startsWith("MCP server broken failed to start: "))).toContain("ENOENT");
    expect(errors.find((message) => message.startsWith("MCP server early failed to start: "))).toContain("boom");
    const notesSource = manager.sources.find((source) => source.name === "notes");
    expect(await notesSource?.call("notes__add", { text: "x" }, context())).toEqual({
      kind: "ok",
      text: "added note 1",
    });
    // tools.mcpTimeout applies to a server that sets no timeout of its own.
    expect(await notesSource?.call("notes__slow", { ms: 10_000 }, context())).toEqual({
      kind: "timeout",
      text: "MCP server notes did not answer within 0.4s",
    });
  });

  it("a Node server whose file is missing: the error shows the line naming the file, whole, not the stack's tail (#28)", async () => {
    const { logger } = capturedLogger();
    const missing = path.join(notesDirectory, "mcp", "a-rather-long-directory-name-for-the-notes-server", "notes.js");
    const tools = toolsConfigSchema.parse({
      mcpServers: { notes: { command: process.execPath, args: [missing] } },
    });
    manager = await connectMcpServers(tools, logger, { retry: { initialDelayMs: 60_000 }, connectTimeoutMs: 20_000 });
    const error = manager.statuses()[0]?.error ?? "";
    expect(error).toContain(`Error: Cannot find module '${missing}'`);
    expect(error).not.toMatch(/\bat \S+ \(node:internal/);
    expect(error).not.toContain("Node.js v");
  });

  it("a server that writes no error line: its first and last lines are shown", async () => {
    const { logger } = capturedLogger();
    const script = [
      "for (let i = 1; i <= 20; i++) process.stderr.write('starting step ' + i + '\\n');",
      "process.stderr.write('gave up\\n'); process.exit(3);",
    ].join(" ");
    const tools = toolsConfigSchema.parse({
      mcpServers: { chatty: { command: process.execPath, args: ["-e", script] } },
    });
    manager = await connectMcpServers(tools, logger, { retry: { initialDelayMs: 60_000 }, connectTimeoutMs: 20_000 });
    const error = manager.statuses()[0]?.error ?? "";
    expect(error).toContain(
      "(stderr: starting step 1 | starting step 2 | starting step 19 | starting step 20 | gave up)",
    );
  });

  it("retries a failed server in the background, logging the failure once, until it starts", async () => {
    const { logger, lines } = capturedLogger();
    const { command, args } = notesServerCommand();
    const serverFile = args.at(-1) ?? "";
    const later = path.join(notesDirectory, "later-server.mts");
    const tools = toolsConfigSchema.parse({
      mcpServers: { later: { command, args: [...args.slice(0, -1), later] } },
    });
    manager = await connectMcpServers(tools, logger, { retry: { initialDelayMs: 20, maxDelayMs: 200 } });
    expect(manager.statuses()[0]).toMatchObject({ name: "later", state: "failed", toolCount: 0 });
    await waitUntil("a few retries", () => lines.filter((line) => line.msg.includes("still fails")).length >= 2);
    expect(lines.filter((line) => line.level === errorLevel)).toHaveLength(1);
    await writeFile(later, `import ${JSON.stringify(serverFile)};\n`);
    await waitUntil("the server has started", () => manager?.statuses()[0]?.state === "connected");
    expect(manager.statuses()[0]).toEqual({ name: "later", transport: "stdio", state: "connected", toolCount: 8 });
    expect(manager.sources[0]?.list().map((tool) => tool.name)).toContain("later__add");
  });
});
