/**
 * The {@link EventPolicy} over loaded policy modules (docs/hooks.md): the top-level module, then
 * the world's own, each given the event as the one before left it. A module that throws, passes
 * its timeout or returns something that is not its event fails (one `error` line naming it);
 * what a failure means (closed for tool calls, open for messages) is the caller's.
 */
import { z } from "zod";
import { errorMessage } from "../errors/roundtable-error.js";
import type { Logger } from "../log/logger.js";
import type { EventPolicy, HookDecision, HookScope, RoundtableEvent } from "../world/policy/event-policy.js";
import type { HookContext, Respond, RespondMessage, RespondOptions } from "../world/policy/hook-events.js";
import type { Config } from "../config/schema.js";
import { type HookModule, loadHookModule } from "./load-hook-module.js";

const respondSchema = z.object({ text: z.string().min(1), sender: z.string().min(1).optional() });
const respondOptionsSchema = z.object({ enqueueAfter: z.literal("tool_results").optional() }).optional();
const returnedMessageSchema = z.object({
  type: z.literal("message"),
  message: z.object({ id: z.string(), text: z.string(), addressed: z.array(z.string()) }),
});
const returnedToolCallSchema = z.object({
  type: z.literal("tool_call"),
  turnId: z.string(),
  toolCalls: z.array(z.object({ id: z.string(), arguments: z.unknown(), approval: z.enum(["required", "never"]) })),
});

/** A module's own failure: its message is what the log line says. */
class HookFailure extends Error {}

export class ModulePolicy implements EventPolicy {
  constructor(
    private readonly topLevel: HookModule | undefined,
    private readonly ofWorlds: ReadonlyMap<string, HookModule>,
    private readonly logger: Logger,
  ) {}

  appliesTo(world: string): boolean {
    return this.topLevel !== undefined || this.ofWorlds.has(world);
  }

  async decide(event: RoundtableEvent, scope: HookScope): Promise<HookDecision> {
    const modules = [this.topLevel, this.ofWorlds.get(scope.world)].filter((module) => module !== undefined);
    let current = event;
    for (const module of modules) {
      const decision = await runModule(module, current, scope, this.logger);
      if (decision.outcome === "failed" || decision.outcome === "responded") return decision;
      if (decision.outcome === "replaced") current = decision.event;
    }
    return current === event ? { outcome: "kept" } : { outcome: "replaced", event: current };
  }
}

/** One module on one event. Never throws. */
export async function runModule(
  module: HookModule,
  event: RoundtableEvent,
  scope: HookScope,
  logger: Logger,
): Promise<HookDecision> {
  let responded: { message: RespondMessage; options: RespondOptions } | undefined;
  let settled = false;
  let respondProblem: string | undefined;
  const respond: Respond = (message, options) => {
    if (settled || responded) return;
    const parsedMessage = respondSchema.safeParse(message);
    const parsedOptions = respondOptionsSchema.safeParse(options);
    if (!parsedMessage.success || !parsedOptions.success) {
      respondProblem = "respond was called without a text";
      return;
    }
    responded = {
      message: {
        text: parsedMessage.data.text,
        ...(parsedMessage.data.sender ? { sender: parsedMessage.data.sender } : {}),
      },
      options: parsedOptions.data?.enqueueAfter ? { enqueueAfter: "tool_results" } : {},
    };
  };
  const bound = { world: scope.world, chat: scope.chatKey, ...(scope.agent ? { agent: scope.agent } : {}) };
  const context: HookContext = { log: logger.child({ ...bound, hook: module.file }), history: scope.history };
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HookFailure(`timed out after ${module.timeoutMs} ms`)), module.timeoutMs);
    });
    // The module gets a copy: what it changes in place counts only when it returns it.
    const call = Promise.resolve().then(() => module.onEvent(structuredClone(event), respond, context));
    const returned = await Promise.race([call, timeout]);
    settled = true;
    if (respondProblem) throw new HookFailure(respondProblem);
    if (responded) return { outcome: "responded", ...responded };
    if (returned === undefined || returned === null) return { outcome: "kept" };
    const replacing = replacement(event, returned);
    return JSON.stringify(replacing) === JSON.stringify(event)
      ? { outcome: "kept" }
      : { outcome: "replaced", event: replacing };
  } catch (error) {
    settled = true;
    const cause = error instanceof HookFailure ? error.message : errorMessage(error).split("\n")[0];
    logger.error(
      { ...bound, hook: module.file, event: event.type, cause },
      `policy hook ${module.file} failed: ${cause}`,
    );
    return { outcome: "failed", error: cause ?? "failed" };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The event a module returned, as a change of the one it was given: only what may change
 * (a message's text and addressing; a call's arguments and approval) is taken, and the ids must
 * be the same.
 */
function replacement(event: RoundtableEvent, returned: unknown): RoundtableEvent {
  const notIt = new HookFailure("it returned something that is not the event it was given");
  if (event.type === "message") {
    const parsed = returnedMessageSchema.safeParse(returned);
    if (!parsed.success || parsed.data.message.id !== event.message.id) throw notIt;
    const { text, addressed } = parsed.data.message;
    return { ...event, message: { ...event.message, text, addressed } };
  }
  const parsed = returnedToolCallSchema.safeParse(returned);
  if (!parsed.success || parsed.data.turnId !== event.turnId) throw notIt;
  const byId = new Map(parsed.data.toolCalls.map((call) => [call.id, call]));
  if (byId.size !== event.toolCalls.length || event.toolCalls.some((call) => !byId.has(call.id))) throw notIt;
  const toolCalls = event.toolCalls.map((call) => {
    const changed = byId.get(call.id);
    if (!changed) return call;
    // Must survive storage as JSON.
    const argumentsValue = changed.arguments === undefined ? call.arguments : jsonValue(changed.arguments);
    return { ...call, arguments: argumentsValue, approval: changed.approval };
  });
  return { ...event, toolCalls };
}

function jsonValue(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    throw new HookFailure("it returned arguments that are not JSON");
  }
}

/**
 * The configured policy modules (`hooks` at the top level and per world, docs/hooks.md), loaded
 * once; undefined when none is configured. A module that does not load throws a `ConfigError`
 * naming the file and the cause (a start error; `roundtable check` reports it).
 */
export async function loadEventPolicy(
  config: Pick<Config, "hooks" | "worlds">,
  logger: Logger,
  cwd = process.cwd(),
): Promise<EventPolicy | undefined> {
  const topLevel = config.hooks ? await loadHookModule(config.hooks.module, config.hooks.timeout, cwd) : undefined;
  const ofWorlds = new Map<string, HookModule>();
  for (const world of config.worlds) {
    if (world.hooks) ofWorlds.set(world.name, await loadHookModule(world.hooks.module, world.hooks.timeout, cwd));
  }
  if (!topLevel && ofWorlds.size === 0) return undefined;
  return new ModulePolicy(topLevel, ofWorlds, logger.child({ component: "hooks" }));
}
