import { errorMessage } from "../errors/roundtable-error.js";
import type { Logger } from "../log/logger.js";
import type { ToolDefinition } from "../providers/model-provider.js";
import { serverOfToolName, toolEntryMatches, wholeServerOf } from "./tool-list-entry.js";
import { hasArgumentPrecheck, type ToolOutcome, type ToolRunContext, type ToolSource } from "./tool-source.js";
import { type ArgumentCheck, validateArguments } from "./validate-arguments.js";

/** A tool offered now, and the source that runs it. */
export interface FoundTool {
  definition: ToolDefinition;
  source: ToolSource;
}

/** A source that can say why it offers nothing (an MCP server that is down). */
interface StatusReporting {
  readonly name: string;
  status(): { state: string; error?: string };
}

function reportsStatus(source: ToolSource): source is ToolSource & StatusReporting {
  const candidate = source as Partial<StatusReporting>;
  return typeof candidate.status === "function" && typeof candidate.name === "string";
}

/**
 * All tool sources behind one name space. Lists are read from the sources on every use, so a
 * server that reconnects or changes its tools is seen at once. On a name clash the first
 * source wins.
 */
export class ToolRegistry {
  constructor(
    private readonly sources: readonly ToolSource[],
    private readonly logger?: Logger,
  ) {}

  /** Every tool offered now. */
  all(): ToolDefinition[] {
    return [...this.index().values()].map((found) => found.definition);
  }

  /**
   * The tools an agent gets: its `tools` list names tools exactly (`notes__add`, `shell_cmd`)
   * or whole servers (`notes__*`). In list order, each tool once; names offered by no source
   * now (a server that is down) are left out.
   */
  toolsForAgent(toolList: readonly string[]): ToolDefinition[] {
    const offered = this.all();
    const chosen = new Map<string, ToolDefinition>();
    for (const entry of toolList) {
      for (const definition of offered) {
        if (toolEntryMatches(entry, definition.name) && !chosen.has(definition.name))
          chosen.set(definition.name, definition);
      }
    }
    return [...chosen.values()];
  }

  /** Entries of an agent's list that name no tool offered now (for `roundtable check`). */
  unmatchedEntries(toolList: readonly string[]): string[] {
    const offered = this.all();
    return toolList.filter((entry) => !offered.some((definition) => toolEntryMatches(entry, definition.name)));
  }

  find(name: string): FoundTool | undefined {
    return this.index().get(name);
  }

  /**
   * Parse a model's arguments text and check it against the tool's schema. With `toolList`
   * (the agent's `tools`), a tool outside that list is refused too: a model may name any tool.
   */
  check(name: string, argumentsJson: string, toolList?: readonly string[]): ArgumentCheck {
    const found = this.find(name);
    if (!found) return { ok: false, problem: this.describeUnknown(name) };
    if (toolList && !toolList.some((entry) => toolEntryMatches(entry, name))) {
      return { ok: false, problem: `tool ${JSON.stringify(name)} is not offered to this agent` };
    }
    return validateArguments(found.definition.inputSchema, argumentsJson);
  }

  /** A source's own check of a call before approval (see `ArgumentPrecheck`); undefined when fine. */
  precheck(name: string, args: Record<string, unknown>, workdir: string): string | undefined {
    const found = this.find(name);
    return found && hasArgumentPrecheck(found.source) ? found.source.precheck(name, args, workdir) : undefined;
  }

  /** Run a call on the source that offers the tool. Never throws: a failure is an outcome. */
  async call(name: string, args: Record<string, unknown>, context: ToolRunContext): Promise<ToolOutcome> {
    const found = this.find(name);
    if (!found) return { kind: "failed", text: this.describeUnknown(name) };
    try {
      return await found.source.call(name, args, context);
    } catch (error) {
      this.logger?.error({ err: error, tool: name }, "tool source threw");
      return { kind: "failed", text: `${name} failed: ${errorMessage(error)}` };
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.close()));
  }

  private index(): Map<string, FoundTool> {
    const index = new Map<string, FoundTool>();
    for (const source of this.sources) {
      for (const definition of source.list()) {
        if (index.has(definition.name)) {
          this.logger?.warn({ tool: definition.name }, "two tool sources offer the same name; the first is used");
          continue;
        }
        index.set(definition.name, { definition, source });
      }
    }
    return index;
  }

  private describeUnknown(name: string): string {
    const server = serverOfToolName(name) ?? wholeServerOf(name);
    const source = this.sources.find((candidate) => reportsStatus(candidate) && candidate.name === server);
    if (source && reportsStatus(source)) {
      const status = source.status();
      if (status.state !== "connected") {
        const why = status.error === undefined ? "" : `: ${status.error}`;
        return `unknown tool ${JSON.stringify(name)} (MCP server ${source.name} is ${status.state}${why})`;
      }
      return `unknown tool ${JSON.stringify(name)} (MCP server ${source.name} offers no such tool)`;
    }
    return `unknown tool ${JSON.stringify(name)}`;
  }
}
