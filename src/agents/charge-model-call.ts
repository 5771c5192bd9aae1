import type { ModelRequest, Usage } from "../providers/model-provider.js";
import type { BucketUse } from "../world/stores/budget-store.js";
import type { BudgetExceeded } from "../world/limits/day-budget.js";
import { postBudgetAlerts, type ReservedBudget, reserveBudget, settleBudget } from "../world/limits/reserve-budget.js";
import type { MessageRecord } from "../world/records.js";
import { chainHumans } from "../world/turn/index.js";
import { utcDay } from "../world/limits/utc-day.js";
import type { AgentRuntime, TurnScope } from "./agent-runtime.js";
import { costOf, priceOf } from "./model-price.js";
import { estimateRequestTokens, estimateTextTokens } from "./view/estimate-tokens.js";

/** A model call's estimate, charged before the call was sent (see {@link reserveModelCall}). */
export interface ChargedCall {
  readonly estimate: ReservedBudget["charge"];
  readonly reserved: ReservedBudget;
}

/**
 * Charge a model call before it is sent: the request's estimated input tokens (and their cost)
 * are added as one estimated call to the world, the turn's chat, its agent and its chain
 * starter (`turn.startedById`: the human whose message started the chain, or
 * `schedule:<name>` / `trigger:<name>`), for the UTC day and month, only if every cap of the
 * world's `limits` that applies holds with them (docs/budgets.md). So one large call cannot
 * pass a budget by a whole context, calls made at once cannot pass it together, and a call that
 * never reports usage (stopped, timed out, failed, or the process died) stays charged at its
 * estimate.
 */
export async function reserveModelCall(
  runtime: AgentRuntime,
  scope: TurnScope,
  request: ModelRequest,
): Promise<ChargedCall | BudgetExceeded> {
  const now = runtime.world.clock();
  const inputTokens = estimateRequestTokens(request);
  const day = utcDay(now);
  const charge: ReservedBudget["charge"] = {
    world: scope.world.name,
    agent: scope.agent.name,
    chatKey: scope.turn.chatKey,
    person: scope.turn.startedById,
    day,
    month: day.slice(0, 7),
    inputTokens,
    outputTokens: 0,
    cachedInputTokens: 0,
    costUsd: costOf({ inputTokens, outputTokens: 0, cachedInputTokens: 0 }, priceOf(scope.agent)),
    calls: 1,
    estimatedCalls: 1,
  };
  const reserved = await reserveBudget(runtime.world.store, scope.world.limits, charge, now);
  return "charge" in reserved ? { estimate: charge, reserved } : reserved;
}

/**
 * Settle a charged call once it is over, on the day it was charged: to the provider's usage
 * where it reported one (the call then no longer counts as estimated), else the estimate keeps
 * its input and adds the streamed text as output (still estimated). The buckets after it (for
 * the alerts).
 */
export async function settleModelCall(
  runtime: AgentRuntime,
  scope: TurnScope,
  charged: ChargedCall,
  outcome: { usage: Usage | undefined; streamed: string },
): Promise<BucketUse[]> {
  const { estimate } = charged;
  const price = priceOf(scope.agent);
  const reported = outcome.usage !== undefined && outcome.usage.inputTokens + outcome.usage.outputTokens > 0;
  const usage: Usage =
    reported && outcome.usage
      ? outcome.usage
      : { inputTokens: estimate.inputTokens, outputTokens: estimateTextTokens(outcome.streamed), cachedInputTokens: 0 };
  return settleBudget(runtime.world.store, charged.reserved, {
    inputTokens: usage.inputTokens - estimate.inputTokens,
    outputTokens: usage.outputTokens - estimate.outputTokens,
    cachedInputTokens: usage.cachedInputTokens - estimate.cachedInputTokens,
    costUsd: costOf(usage, price) - estimate.costUsd,
    calls: 0,
    estimatedCalls: reported ? -1 : 0,
  });
}

/**
 * Charge a call sent again from the start (it broke off after some output, see
 * `src/providers/with-retries.ts`): what the broken attempt cost is settled as any call's (its
 * usage if reported, else the estimate and the text it streamed), and the new request is
 * reserved its estimate against every cap that applies, like any call: the cap it would pass
 * otherwise (then it is not sent again; nothing more is charged).
 */
export async function chargeResentCall(
  runtime: AgentRuntime,
  scope: TurnScope,
  charged: ChargedCall,
  broken: { usage: Usage | undefined; streamed: string },
): Promise<ChargedCall | BudgetExceeded> {
  await settleModelCall(runtime, scope, charged, broken);
  const now = runtime.world.clock();
  const reserved = await reserveBudget(runtime.world.store, scope.world.limits, charged.estimate, now);
  return "charge" in reserved ? { estimate: charged.estimate, reserved } : reserved;
}

/**
 * Settle a charged call ({@link settleModelCall}), then post the budget alerts its use crossed
 * (`limits.alerts`, once per cap, threshold and period).
 */
export async function settleAndAlert(
  runtime: AgentRuntime,
  scope: TurnScope,
  charged: ChargedCall,
  outcome: { usage: Usage | undefined; streamed: string },
  trigger: MessageRecord | undefined,
): Promise<void> {
  const used = await settleModelCall(runtime, scope, charged, outcome);
  await postBudgetAlerts(
    runtime.world,
    runtime.outbox,
    scope.world.name,
    scope.world.limits,
    charged.reserved,
    used,
    () => chainStarterName(runtime, trigger),
  );
}

/** The chain starter's name for budget texts: the first human of the chain, else the starter's id. */
export async function chainStarterName(
  runtime: AgentRuntime,
  trigger: MessageRecord | undefined,
): Promise<string | undefined> {
  if (!trigger) return undefined;
  if (trigger.author.kind === "human") return trigger.author.name;
  return (await chainHumans(runtime.world, trigger))[0];
}
