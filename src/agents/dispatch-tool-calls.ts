import type { ToolCallRecord } from "../world/records.js";
import { jobKey } from "../world/jobs.js";
import { parseChatKey } from "../world/chat-ref.js";
import { parkTurn, recordToolResult, requestApproval, stickyDenialOf } from "../world/turn/index.js";
import { allowedByStoredRule } from "../world/policy/stored-rules.js";
import { showToolProgress } from "../world/working-status.js";
import type { AgentRuntime, TurnScope } from "./agent-runtime.js";
import { continueTurn } from "./continue-turn.js";
import { repeatGuardDetail } from "./loop-limits.js";
import { repeatGuardTripped } from "./repeat-guard.js";
import { resolveWorkdir } from "./workdir.js";
import { toolCallsThroughPolicy } from "./tool-call-policy.js";

/**
 * Decide each open call of a step by policy: invalid arguments get an `invalid` result at
 * once, blocked calls a `blocked` result, allowed ones are queued to run, the rest get an
 * approval card (all at once). Idempotent: calls that have a result or an approval are left alone.
 */
export async function dispatchToolCalls(runtime: AgentRuntime, scope: TurnScope, step: number): Promise<void> {
  const { store } = runtime.world;
  const { turn, agent } = scope;
  // The policy hooks see the calls first (docs/hooks.md); a `respond` closes them all here.
  const policed = await toolCallsThroughPolicy(
    runtime,
    scope,
    step,
    await store.listToolCalls({ turnId: turn.id, step }),
  );
  if (policed.kind === "closed") return;
  const { calls, approvals, changed } = policed;
  const earlier = (await store.listToolCalls({ turnId: turn.id })).filter((call) => call.step < step);
  const offered = new Set(runtime.tools.definitionsFor(agent.tools).map((tool) => tool.name));
  const epoch = (await store.getChat(turn.chatKey))?.sessionEpoch ?? 0;
  let parked = false;

  for (const call of calls) {
    if (call.state === "awaiting-approval") {
      // Resumed after a restart: make sure its approval, card and expiry exist (each once).
      const checked = runtime.tools.check(call.name, call.argumentsJson);
      if (checked.ok)
        await askFor(runtime, scope, call, checked.args, runtime.policy.decide(call.name, checked.args).reason);
      parked = true;
      continue;
    }
    if (call.state !== "pending") {
      if (call.state === "running") await queueRun(runtime, call);
      continue;
    }
    if (!offered.has(call.name)) {
      await recordToolResult(
        runtime.world,
        runtime.outbox,
        call,
        "invalid",
        `there is no tool named ${call.name} for ${agent.name}`,
      );
      continue;
    }
    const checked = runtime.tools.check(call.name, call.argumentsJson);
    if (!checked.ok) {
      await recordToolResult(runtime.world, runtime.outbox, call, "invalid", checked.problem);
      continue;
    }
    const problem = runtime.tools.precheck(call.name, checked.args, await resolveWorkdir(scope.world));
    if (problem !== undefined) {
      await recordToolResult(runtime.world, runtime.outbox, call, "invalid", problem);
      continue;
    }
    const hash = runtime.policy.hash(call.name, checked.args);
    const repeats = repeatGuardTripped(runtime, agent.limits.maxRepeats, call, earlier);
    if (repeats !== undefined) {
      await recordToolResult(
        runtime.world,
        runtime.outbox,
        call,
        "blocked",
        `${repeatGuardDetail} ${repeats} times in this turn`,
      );
      continue;
    }
    const verdict = runtime.policy.decide(call.name, checked.args);
    if (verdict.action === "block") {
      // A configured deny rule blocks whatever a hook said.
      await recordToolResult(runtime.world, runtime.outbox, call, "blocked", verdict.reason);
      continue;
    }
    const approval = approvals.get(call.id);
    if (approval === "never") {
      await queueRun(runtime, call);
      continue;
    }
    if (approval === "required" || changed.has(call.id)) {
      const reason = changed.has(call.id) ? `arguments changed by policy; ${verdict.reason}` : "required by policy";
      if (approval === "required" || verdict.action === "ask") {
        if (await deniedAgain(runtime, call, hash, epoch)) continue;
        await askFor(runtime, scope, call, checked.args, reason);
        parked = true;
        continue;
      }
    }
    const granted =
      verdict.action === "ask" &&
      (await store.hasSessionGrant({
        chatKey: turn.chatKey,
        agent: agent.name,
        tool: call.name,
        argsHash: hash,
        sessionEpoch: epoch,
      }));
    if (verdict.action === "run" || granted) {
      await queueRun(runtime, call);
      continue;
    }
    // A stored *Always allow* rule, matched like a configured `allow` rule: never past a `deny`
    // rule (blocked above) nor one that could not be checked (docs/approvals.md, "Always allow").
    const rule =
      verdict.action === "ask" && verdict.unchecked !== true
        ? await allowedByStoredRule(store, scope.world, call, hash, runtime.world.clock())
        : undefined;
    if (rule) {
      runtime.world.logger.info({ toolCallId: call.id, rule: rule.id }, "tool call allowed by a stored rule");
      await queueRun(runtime, call);
      continue;
    }
    if (await deniedAgain(runtime, call, hash, epoch)) continue;
    await askFor(runtime, scope, call, checked.args, verdict.reason);
    parked = true;
  }
  if (parked) await parkTurn(runtime.world, turn.id);
  await continueTurn(runtime, turn.id, step);
}

async function queueRun(runtime: AgentRuntime, call: ToolCallRecord): Promise<void> {
  const payload = { kind: "run-tool", toolCallId: call.id } as const;
  await runtime.world.queue.add({ queue: call.chatKey, key: jobKey(payload), payload });
}

/**
 * A call a person denied before in this chat's session (same agent, tool and canonical
 * arguments) is denied again with no card, until `/reset` (docs/approvals.md, "Deny with a reason").
 */
async function deniedAgain(runtime: AgentRuntime, call: ToolCallRecord, argsHash: string, sessionEpoch: number) {
  const key = { chatKey: call.chatKey, agent: call.agent, tool: call.name, argsHash, sessionEpoch };
  const detail = await stickyDenialOf(runtime.world, key);
  if (detail === undefined) return false;
  runtime.world.logger.info(
    { toolCallId: call.id, chat: call.chatKey },
    "tool call denied again: the same call was denied",
  );
  await recordToolResult(runtime.world, runtime.outbox, call, "denied", detail);
  return true;
}

/** The card of a call the policy asks about ({@link requestApproval} owns the approval itself). */
function askFor(
  runtime: AgentRuntime,
  scope: TurnScope,
  call: ToolCallRecord,
  args: Record<string, unknown>,
  reason: string,
): Promise<void> {
  const ask = { args, argumentsPreview: runtime.policy.preview(args), reason };
  showToolProgress(runtime.world, parseChatKey(call.chatKey), call.agent, {
    callId: call.id,
    tool: call.name,
    state: "waiting",
  });
  return requestApproval(runtime.world, runtime.outbox, scope.turn, scope.world, call, ask);
}
