import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../../config/schema.js";
import type { Logger } from "../../log/logger.js";
import type { ToolDefinition } from "../../providers/model-provider.js";
import { formatSeconds } from "../format-seconds.js";
import type { ToolOutcome, ToolRunContext, ToolSource } from "../tool-source.js";
import { describeMcpError } from "./describe-mcp-error.js";
import { listAllTools } from "./list-all-tools.js";
import { mcpResultFiles } from "./mcp-result-files.js";
import { mcpResultText } from "./mcp-result-text.js";
import { mcpToolName } from "./mcp-tool-name.js";
import { createMcpTransport, type McpTransportKind, transportKindOf } from "./mcp-transport.js";
import { StderrTail } from "./stderr-tail.js";

/** Where a server stands: being (re)connected, connected, failed (retried in the background), closed. */
export type McpServerState = "connecting" | "connected" | "failed" | "closed";

/** A server's state for `roundtable check` and logs. */
export interface McpServerStatus {
  name: string;
  transport: McpTransportKind;
  state: McpServerState;
  /** Why it is not connected (the last failure). */
  error?: string;
  /** How many tools it offers now. */
  toolCount: number;
}

/** Background reconnection: the first wait, doubled after every failure up to the maximum. */
export interface McpRetryOptions {
  initialDelayMs?: number;
  maxDelayMs?: number;
}

export interface McpServerSourceOptions {
  /** The server's name in `tools.mcpServers`; tools are offered as `<name>__<tool>`. */
  name: string;
  config: McpServerConfig;
  /** `tools.mcpTimeout`; the server's own `timeout` overrides it. */
  defaultTimeoutMs: number;
  logger: Logger;
  retry?: McpRetryOptions;
  /** Time a server may take to start and list its tools (default: the call timeout, at least 60 s). */
  connectTimeoutMs?: number;
}

const clientInfo = { name: "roundtable", version: "0.1.0" };

interface OfferedTool {
  definition: ToolDefinition;
  /** The name the server knows the tool by. */
  serverToolName: string;
}

/**
 * One MCP server as a tool source. `connect()` never throws: a server that fails to start is
 * logged at `error` with the cause, offers no tools, shows `failed` in `status()`, and is retried
 * in the background. A server that dies keeps its tools listed while it is reconnected (in the
 * background, or at once by the next call); the call in flight gets `failed` and is never re-run.
 * Calls time out after the server's `timeout` (else `tools.mcpTimeout`) with a `timeout` outcome.
 */
export class McpServerSource implements ToolSource {
  readonly name: string;
  private readonly config: McpServerConfig;
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly log: Logger;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private client: Client | undefined;
  /** The client of the attempt under way, so `close()` can end a server that hangs starting. */
  private opening: Client | undefined;
  private attempt: Promise<void> | undefined;
  private tools = new Map<string, OfferedTool>();
  private state: McpServerState = "connecting";
  private lastError: string | undefined;
  private failureLogged = false;
  private everConnected = false;
  private retries = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: McpServerSourceOptions) {
    this.name = options.name;
    this.config = options.config;
    this.timeoutMs = options.config.timeout ?? options.defaultTimeoutMs;
    this.connectTimeoutMs = options.connectTimeoutMs ?? Math.max(this.timeoutMs, 60_000);
    this.log = options.logger.child({ mcpServer: options.name });
    this.initialDelayMs = options.retry?.initialDelayMs ?? 1000;
    this.maxDelayMs = options.retry?.maxDelayMs ?? 60_000;
  }

  /** Connect (or reconnect) now; resolves when connected or failed, never rejects. */
  connect(): Promise<void> {
    if (this.closed || this.client) return Promise.resolve();
    if (!this.attempt) {
      this.clearRetry();
      this.state = "connecting";
      this.attempt = this.open().finally(() => {
        this.attempt = undefined;
      });
    }
    return this.attempt;
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      transport: transportKindOf(this.config),
      state: this.state,
      ...(this.state !== "connected" && this.lastError !== undefined ? { error: this.lastError } : {}),
      toolCount: this.tools.size,
    };
  }

  list(): ToolDefinition[] {
    return [...this.tools.values()].map((tool) => tool.definition);
  }

  async call(name: string, args: Record<string, unknown>, context: ToolRunContext): Promise<ToolOutcome> {
    if (context.signal.aborted) return { kind: "failed", text: `${name} was not started: the service is stopping` };
    // A server that died is reconnected by the next call (the background may not have yet).
    if (!this.client) await this.connect();
    const client = this.client;
    if (!client) return { kind: "failed", text: `MCP server ${this.name} is not connected${this.describeState()}` };
    const tool = this.tools.get(name);
    if (!tool) return { kind: "failed", text: `${name} is not offered by MCP server ${this.name}` };
    try {
      const result = await client.callTool({ name: tool.serverToolName, arguments: args }, undefined, {
        timeout: this.timeoutMs,
        signal: context.signal,
      });
      this.retries = 0;
      const text = mcpResultText(result);
      const files = mcpResultFiles(result);
      const given = files.length === 0 ? {} : { files };
      return "isError" in result && result.isError === true
        ? { kind: "error", text, ...given }
        : { kind: "ok", text, ...given };
    } catch (error) {
      return this.outcomeOfFailure(error, client, context);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clearRetry();
    this.state = "closed";
    this.tools.clear();
    const client = this.client;
    this.client = undefined;
    await Promise.all([client?.close(), this.opening?.close()].map((closing) => closing?.catch(() => undefined)));
    await this.attempt;
  }

  private async open(): Promise<void> {
    const stderr = new StderrTail();
    const { transport } = createMcpTransport(this.config, (line) => {
      stderr.push(line);
      this.log.debug({ stderr: line }, "MCP server stderr");
    });
    const client: Client = new Client(clientInfo, {
      capabilities: {},
      listChanged: { tools: { onChanged: (error, tools) => this.onToolsChanged(client, error, tools) } },
    });
    client.onerror = (error) => this.log.debug({ err: error }, "MCP connection error");
    client.onclose = () => this.onConnectionClosed(client);
    this.opening = client;
    try {
      await client.connect(transport, { timeout: this.connectTimeoutMs });
      const tools = await listAllTools(client, this.connectTimeoutMs);
      if (this.closed) {
        await client.close();
        return;
      }
      const reconnected = this.everConnected;
      this.everConnected = true;
      this.client = client;
      this.setTools(tools);
      this.state = "connected";
      this.lastError = undefined;
      this.failureLogged = false;
      this.log.info({ tools: this.tools.size }, `MCP server ${this.name} ${reconnected ? "reconnected" : "connected"}`);
    } catch (error) {
      await client.close().catch(() => undefined);
      if (this.closed) return;
      const cause = `${describeMcpError(error)}${stderr.describe()}`;
      this.state = "failed";
      this.lastError = cause;
      this.tools.clear();
      if (this.failureLogged) {
        this.log.debug({ err: error }, `MCP server ${this.name} still fails to start: ${cause}`);
      } else {
        this.failureLogged = true;
        this.log.error({ err: error }, `MCP server ${this.name} failed to start: ${cause}`);
      }
      this.scheduleRetry();
    } finally {
      this.opening = undefined;
    }
  }

  private outcomeOfFailure(error: unknown, client: Client, context: ToolRunContext): ToolOutcome {
    if (context.signal.aborted) {
      return {
        kind: "failed",
        text: `stopped while MCP server ${this.name} was running the call: the service is stopping`,
      };
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return {
        kind: "timeout",
        text: `MCP server ${this.name} did not answer within ${formatSeconds(this.timeoutMs)}`,
      };
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return {
        kind: "failed",
        text: `MCP server ${this.name} closed the connection during the call; the call is not repeated`,
      };
    }
    if (error instanceof McpError) return { kind: "error", text: error.message };
    // Not an answer from the server: the connection is suspect, so the next call starts a new one.
    this.dropConnection(client, error);
    return { kind: "failed", text: `MCP server ${this.name} could not be reached: ${describeMcpError(error)}` };
  }

  private onConnectionClosed(client: Client): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    this.state = "connecting";
    this.lastError = "the server closed the connection";
    this.log.warn(`MCP server ${this.name} closed the connection; reconnecting`);
    this.scheduleRetry();
  }

  private dropConnection(client: Client, error: unknown): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    this.state = "connecting";
    this.lastError = describeMcpError(error);
    this.log.warn({ err: error }, `MCP server ${this.name} could not be reached; reconnecting`);
    void client.close().catch(() => undefined);
    this.scheduleRetry();
  }

  private onToolsChanged(client: Client, error: Error | null, tools: Tool[] | null): void {
    if (this.closed || this.client !== client) return;
    if (error) this.log.warn({ err: error }, `MCP server ${this.name}: could not refresh its tools`);
    else if (tools) this.setTools(tools);
  }

  private setTools(tools: Tool[]): void {
    const offered = new Map<string, OfferedTool>();
    for (const tool of tools) {
      const name = mcpToolName(this.name, tool.name);
      if (offered.has(name)) {
        this.log.warn(
          { tool: tool.name },
          `MCP server ${this.name}: tool ${tool.name} left out, its name clashes as ${name}`,
        );
        continue;
      }
      offered.set(name, {
        serverToolName: tool.name,
        definition: {
          name,
          description: tool.description ?? tool.title ?? `${tool.name} (MCP server ${this.name})`,
          inputSchema: tool.inputSchema as Record<string, unknown>,
        },
      });
    }
    this.tools = offered;
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const delay = Math.min(this.initialDelayMs * 2 ** this.retries, this.maxDelayMs);
    this.retries += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private describeState(): string {
    return this.lastError === undefined ? "" : ` (${this.state}: ${this.lastError})`;
  }
}
