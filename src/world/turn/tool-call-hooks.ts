/**
 * The `tool_call` event (docs/hooks.md): a model step's calls go through the world's policy
 * modules after they are stored and before policy, cards or any run. The outcome is stored (with
 * changed arguments, in the same transaction) before anything acts on it; a step run again after
 * a crash acts on the stored outcome and never asks again. Fails closed: a hook that throws or
 * passes its timeout blocks every call.
 */
import type { ToolCallRecord } from "../records.js";
import type { HookOutcomeRecord, HookToolCall, ToolCallEvent } from "../policy/event-policy.js";
import { hookChat, hookScope } from "../policy/message-policy.js";
import { postProgrammaticMessage } from "../policy/programmatic-message.js";
import { recordToolResult } from "./record-tool-result.js";
import type { LoopParts, TurnScope } from "./turn-scope.js";

/** What the dispatch does next: go on with these approvals set by the policy, or nothing (the policy answered: the turn closes). */
export type ToolCallPolicing =
  | {
      kind: "dispatch";
      /** Calls whose approval a hook changed: `never` runs now, `required` asks (a `deny` rule still blocks). */
      approvals: ReadonlyMap<string, "required" | "never">;
      /** Calls whose arguments a hook changed (their cards say so). */
      changed: ReadonlySet<string>;
      /** The calls as stored now (changed arguments included). */
      calls: ToolCallRecord[];
    }
  | { kind: "closed" };

const noChange = { approvals: new Map(), changed: new Set<string>() };

/** Run the step's pending calls through the policy (or its stored outcome) and act on it. */
export async function toolCallsThroughPolicy(
  loop: LoopParts,
  scope: TurnScope,
  step: number,
  calls: ToolCallRecord[],
): Promise<ToolCallPolicing> {
  const { policy, store } = loop.world;
  if (!policy?.appliesTo(scope.world.name)) return { kind: "dispatch", ...noChange, calls };
  const key = `tool_call:${scope.turn.id}:${step}`;
  let stored = await store.getHookOutcome(key);
  if (!stored) {
    const pending = calls.filter((call) => call.state === "pending");
    if (pending.length === 0) return { kind: "dispatch", ...noChange, calls };
    const event = toolCallEvent(loop, scope, pending);
    const context = hookScope(store, scope.world.name, scope.turn.chatKey, scope.agent.name);
    const decision = await policy.decide(event, context);
    const callArguments =
      decision.outcome === "replaced" && decision.event.type === "tool_call"
        ? changedArguments(event, decision.event).map(({ id, value }) => ({ id, argumentsJson: JSON.stringify(value) }))
        : [];
    stored = await store.recordHookOutcome(
      { key, chatKey: scope.turn.chatKey, kind: "tool_call", outcome: decision.outcome, event, decision },
      { callArguments },
    );
    if (callArguments.length > 0) calls = await store.listToolCalls({ turnId: scope.turn.id, step });
  }
  return act(loop, scope, step, calls, stored);
}

async function act(
  loop: LoopParts,
  scope: TurnScope,
  step: number,
  calls: ToolCallRecord[],
  stored: HookOutcomeRecord,
): Promise<ToolCallPolicing> {
  const decision = stored.decision;
  const open = calls.filter((call) => call.state === "pending");
  switch (decision.outcome) {
    case "kept":
      return { kind: "dispatch", ...noChange, calls };
    case "replaced": {
      if (decision.event.type !== "tool_call" || stored.event.type !== "tool_call")
        return { kind: "dispatch", ...noChange, calls };
      const original = new Map(stored.event.toolCalls.map((call) => [call.id, call]));
      const approvals = new Map<string, "required" | "never">();
      for (const call of decision.event.toolCalls)
        if (original.get(call.id)?.approval !== call.approval) approvals.set(call.id, call.approval);
      const changed = new Set(changedArguments(stored.event, decision.event).map((call) => call.id));
      return { kind: "dispatch", approvals, changed, calls };
    }
    case "failed":
      // Closed: none of the calls runs; the model sees why and the turn goes on.
      for (const call of open) await recordToolResult(loop.world, loop.outbox, call, "blocked", "policy hook failed");
      return { kind: "dispatch", ...noChange, calls: [] };
    case "responded": {
      const message = {
        chatKey: scope.turn.chatKey,
        id: `${scope.turn.id}#${step}:policy`,
        respond: decision.message,
        agent: scope.agent.name,
        turnId: scope.turn.id,
      };
      const after = decision.options.enqueueAfter === "tool_results";
      if (!after) await postProgrammaticMessage(loop.world, loop.outbox, scope.world, message);
      for (const call of open) await recordToolResult(loop.world, loop.outbox, call, "denied", decision.message.text);
      if (after) await postProgrammaticMessage(loop.world, loop.outbox, scope.world, message);
      // The programmatic message is the turn's answer: no further model call (the loop closes the turn).
      return { kind: "closed" };
    }
  }
}

/** The event of a step's pending calls, each with what the configured policy decided. */
function toolCallEvent(loop: LoopParts, scope: TurnScope, calls: ToolCallRecord[]): ToolCallEvent {
  return {
    type: "tool_call",
    createdBy: "agent",
    world: scope.world.name,
    chat: hookChat(scope.turn.chatKey),
    agent: scope.agent.name,
    turnId: scope.turn.id,
    toolCalls: calls.map((call) => hookToolCall(loop, call)),
  };
}

function hookToolCall(loop: LoopParts, call: ToolCallRecord): HookToolCall {
  let args: unknown = call.argumentsJson;
  try {
    args = JSON.parse(call.argumentsJson) as unknown;
  } catch {
    // Not JSON: the hook sees the text as the model sent it (the call gets `invalid` anyway).
  }
  const checked = loop.workers.checkArguments(call.name, call.argumentsJson);
  const approval =
    checked.ok && loop.workers.policy.decide(call.name, checked.args).action === "run" ? "never" : "required";
  return { id: call.id, name: call.name, arguments: args, approval };
}

/** The calls whose arguments the replacing event changed, with their new value. */
function changedArguments(original: ToolCallEvent, replaced: ToolCallEvent): { id: string; value: unknown }[] {
  const before = new Map(original.toolCalls.map((call) => [call.id, JSON.stringify(call.arguments)]));
  return replaced.toolCalls
    .filter((call) => before.get(call.id) !== JSON.stringify(call.arguments))
    .map((call) => ({ id: call.id, value: call.arguments }));
}
