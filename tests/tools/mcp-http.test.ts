import { afterEach, describe, expect, it } from "vitest";
import { toolsConfigSchema } from "../../src/config/schema.js";
import { McpServerSource, type McpServerSourceOptions } from "../../src/tools/mcp/mcp-server-source.js";
import type { ToolRunContext } from "../../src/tools/tool-source.js";
import { type HttpNotesServer, startHttpNotesServer } from "../fakes/mcp-http-notes-server.js";
import { capturedLogger } from "./captured-logger.js";
import { waitUntil } from "./wait-until.js";

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startServer(port = 0): Promise<HttpNotesServer> {
  const server = await startHttpNotesServer(port);
  cleanups.push(() => server.close());
  return server;
}

async function connect(
  url: string,
  extra: Record<string, unknown> = {},
  options: Partial<McpServerSourceOptions> = {},
): Promise<McpServerSource> {
  const tools = toolsConfigSchema.parse({
    mcpServers: { search: { url, headers: { Authorization: "Bearer t0ken" }, ...extra } },
  });
  const config = tools.mcpServers.search;
  if (!config) throw new Error("no config");
  const source = new McpServerSource({
    name: "search",
    config,
    defaultTimeoutMs: 20_000,
    logger: capturedLogger().logger,
    retry: { initialDelayMs: 60_000 },
    ...options,
  });
  cleanups.push(() => source.close());
  await source.connect();
  return source;
}

const context = (): ToolRunContext => ({ workdir: "/tmp", signal: new AbortController().signal, timeoutMs: 60_000 });

describe("MCP over Streamable HTTP (stateless server)", () => {
  it("lists tools, sends the configured headers, and calls", async () => {
    const server = await startServer();
    const source = await connect(server.url);
    expect(source.status()).toEqual({ name: "search", transport: "http", state: "connected", toolCount: 7 });
    expect(source.list().map((tool) => tool.name)).toEqual([
      "search__add",
      "search__list",
      "search__fail",
      "search__slow",
      "search__picture",
      "search__report",
      "search__env",
    ]);
    expect(await source.call("search__add", { text: "over http" }, context())).toEqual({
      kind: "ok",
      text: "added note 1",
    });
    expect(await source.call("search__list", {}, context())).toEqual({ kind: "ok", text: "1. over http" });
    expect(server.authorizations.length).toBeGreaterThan(0);
    expect(new Set(server.authorizations)).toEqual(new Set(["Bearer t0ken"]));
  });

  it("turns isError into an error outcome and a slow answer into a timeout", async () => {
    const server = await startServer();
    const source = await connect(server.url, { timeout: "300ms" });
    expect(await source.call("search__fail", {}, context())).toEqual({ kind: "error", text: "it failed on purpose" });
    expect(await source.call("search__slow", { ms: 10_000 }, context())).toEqual({
      kind: "timeout",
      text: "MCP server search did not answer within 0.3s",
    });
  });

  it("shows a server that cannot be reached as failed, with the cause", async () => {
    const server = await startServer();
    const url = server.url;
    await server.close();
    const source = await connect(url);
    expect(source.status()).toMatchObject({ name: "search", state: "failed", toolCount: 0 });
    expect(source.status().error).toContain("fetch failed");
    expect(source.list()).toEqual([]);
  });

  it("fails a call while the server is down, then reconnects on the next call once it is back", async () => {
    const first = await startServer();
    const port = Number(new URL(first.url).port);
    const source = await connect(first.url);
    await first.close();
    const down = await source.call("search__list", {}, context());
    expect(down.kind).toBe("failed");
    expect(down.text).toContain("MCP server search could not be reached: fetch failed");
    expect(source.status().state).toBe("connecting");
    await startServer(port);
    expect(await source.call("search__list", {}, context())).toEqual({ kind: "ok", text: "no notes" });
    expect(source.status().state).toBe("connected");
  });

  it("brings a server's tools back in the background when it returns", async () => {
    const first = await startServer();
    const port = Number(new URL(first.url).port);
    const source = await connect(first.url, {}, { retry: { initialDelayMs: 20, maxDelayMs: 100 } });
    await first.close();
    await source.call("search__list", {}, context());
    await waitUntil("the server is seen as failed", () => source.status().state === "failed");
    expect(source.list()).toEqual([]);
    await startServer(port);
    await waitUntil("the server is connected again", () => source.status().state === "connected");
    expect(source.list()).toHaveLength(7);
  });
});
