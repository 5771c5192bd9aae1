import type { ToolCallRecord } from "../records.js";
import { jobKey } from "../jobs.js";
import { parseChatKey } from "../chat-ref.js";
import { allowedByStoredRule } from "../policy/stored-rules.js";
import { showToolProgress } from "../working-status.js";
import { recordToolResult } from "./record-tool-result.js";
import { requestApproval, stickyDenialOf } from "./approvals/index.js";
import { repeatGuardDetail, repeatGuardTripped } from "./repeat-guard.js";
import type { LoopParts, TurnScope } from "./turn-scope.js";
import { toolCallsThroughPolicy } from "./tool-call-hooks.js";

/**
 * Decide each open call of a step by policy: invalid arguments get an `invalid` result at
 * once, blocked calls a `blocked` result, allowed ones are queued to run, the rest get an
 * approval card (all at once). Idempotent: calls that have a result or an approval are left alone.
 * Says what the loop does next: close the turn (the policy hooks answered for it), park it (a
 * card is out), or go on.
 */
export async function dispatchToolCalls(
  loop: LoopParts,
  scope: TurnScope,
  step: number,
): Promise<"answered-by-policy" | "parked" | "open"> {
  const { store } = loop.world;
  const { turn, agent } = scope;
  // The policy hooks see the calls first (docs/hooks.md); a `respond` closes them all here.
  const policed = await toolCallsThroughPolicy(loop, scope, step, await store.listToolCalls({ turnId: turn.id, step }));
  if (policed.kind === "closed") return "answered-by-policy";
  const { calls, approvals, changed } = policed;
  const earlier = (await store.listToolCalls({ turnId: turn.id })).filter((call) => call.step < step);
  const offered = loop.workers.toolsOffered(agent.name);
  const epoch = (await store.getChat(turn.chatKey))?.sessionEpoch ?? 0;
  let parked = false;

  for (const call of calls) {
    if (call.state === "awaiting-approval") {
      // Resumed after a restart: make sure its approval, card and expiry exist (each once).
      const checked = loop.workers.checkArguments(call.name, call.argumentsJson);
      if (checked.ok)
        await askFor(loop, scope, call, checked.args, loop.workers.policy.decide(call.name, checked.args).reason);
      parked = true;
      continue;
    }
    if (call.state !== "pending") {
      if (call.state === "running") await queueRun(loop, call);
      continue;
    }
    if (!offered.has(call.name)) {
      await recordToolResult(
        loop.world,
        loop.outbox,
        call,
        "invalid",
        `there is no tool named ${call.name} for ${agent.name}`,
      );
      continue;
    }
    const checked = loop.workers.checkArguments(call.name, call.argumentsJson);
    if (!checked.ok) {
      await recordToolResult(loop.world, loop.outbox, call, "invalid", checked.problem);
      continue;
    }
    const problem = await loop.workers.precheck(call.name, checked.args, scope.world);
    if (problem !== undefined) {
      await recordToolResult(loop.world, loop.outbox, call, "invalid", problem);
      continue;
    }
    const hash = loop.workers.policy.hash(call.name, checked.args);
    const repeats = repeatGuardTripped(loop, agent.limits.maxRepeats, call, earlier);
    if (repeats !== undefined) {
      await recordToolResult(
        loop.world,
        loop.outbox,
        call,
        "blocked",
        `${repeatGuardDetail} ${repeats} times in this turn`,
      );
      continue;
    }
    const verdict = loop.workers.policy.decide(call.name, checked.args);
    if (verdict.action === "block") {
      // A configured deny rule blocks whatever a hook said.
      await recordToolResult(loop.world, loop.outbox, call, "blocked", verdict.reason);
      continue;
    }
    const approval = approvals.get(call.id);
    if (approval === "never") {
      await queueRun(loop, call);
      continue;
    }
    if (approval === "required" || changed.has(call.id)) {
      const reason = changed.has(call.id) ? `arguments changed by policy; ${verdict.reason}` : "required by policy";
      if (approval === "required" || verdict.action === "ask") {
        if (await deniedAgain(loop, call, hash, epoch)) continue;
        await askFor(loop, scope, call, checked.args, reason);
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
      await queueRun(loop, call);
      continue;
    }
    // A stored *Always allow* rule, matched like a configured `allow` rule: never past a `deny`
    // rule (blocked above) nor one that could not be checked (docs/approvals.md, "Always allow").
    const rule =
      verdict.action === "ask" && verdict.unchecked !== true
        ? await allowedByStoredRule(store, scope.world, call, hash, loop.world.clock())
        : undefined;
    if (rule) {
      loop.world.logger.info({ toolCallId: call.id, rule: rule.id }, "tool call allowed by a stored rule");
      await queueRun(loop, call);
      continue;
    }
    if (await deniedAgain(loop, call, hash, epoch)) continue;
    await askFor(loop, scope, call, checked.args, verdict.reason);
    parked = true;
  }
  return parked ? "parked" : "open";
}

async function queueRun(loop: LoopParts, call: ToolCallRecord): Promise<void> {
  const payload = { kind: "run-tool", toolCallId: call.id } as const;
  await loop.world.queue.add({ queue: call.chatKey, key: jobKey(payload), payload });
}

/**
 * A call a person denied before in this chat's session (same agent, tool and canonical
 * arguments) is denied again with no card, until `/reset` (docs/approvals.md, "Deny with a reason").
 */
async function deniedAgain(loop: LoopParts, call: ToolCallRecord, argsHash: string, sessionEpoch: number) {
  const key = { chatKey: call.chatKey, agent: call.agent, tool: call.name, argsHash, sessionEpoch };
  const detail = await stickyDenialOf(loop.world, key);
  if (detail === undefined) return false;
  loop.world.logger.info(
    { toolCallId: call.id, chat: call.chatKey },
    "tool call denied again: the same call was denied",
  );
  await recordToolResult(loop.world, loop.outbox, call, "denied", detail);
  return true;
}

/** The card of a call the policy asks about ({@link requestApproval} owns the approval itself). */
function askFor(
  loop: LoopParts,
  scope: TurnScope,
  call: ToolCallRecord,
  args: Record<string, unknown>,
  reason: string,
): Promise<void> {
  const ask = { args, argumentsPreview: loop.workers.policy.preview(args), reason };
  showToolProgress(loop.world, parseChatKey(call.chatKey), call.agent, {
    callId: call.id,
    tool: call.name,
    state: "waiting",
  });
  return requestApproval(loop.world, loop.outbox, scope.turn, scope.world, call, ask);
}
