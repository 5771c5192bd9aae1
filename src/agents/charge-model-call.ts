import type { ModelRequest, Usage } from "../providers/model-provider.js";
import type { UsageChange } from "../world/accounting-store.js";
import { type BudgetExceeded, reserveDayBudget } from "../world/limits/day-budget.js";
import { utcDay } from "../world/limits/utc-day.js";
import type { AgentRuntime, TurnScope } from "./agent-runtime.js";
import { costOf, priceOf } from "./model-price.js";
import { estimateRequestTokens, estimateTextTokens } from "./view/estimate-tokens.js";

/** A model call's estimate, charged before the call was sent (see {@link reserveModelCall}). */
export interface ChargedCall {
  readonly estimate: UsageChange;
}

/**
 * Charge a model call before it is sent: the request's estimated input tokens (and their cost)
 * are added to the world's day as one estimated call, only if the day's `tokensPerDay` and
 * `costPerDay` hold with them. So one large call cannot pass the budget by a whole context,
 * calls made at once cannot pass it together, and a call that never reports usage (stopped,
 * timed out, failed, or the process died) stays charged at its estimate.
 */
export async function reserveModelCall(
  runtime: AgentRuntime,
  scope: TurnScope,
  request: ModelRequest,
): Promise<ChargedCall | BudgetExceeded> {
  const now = runtime.world.clock();
  const inputTokens = estimateRequestTokens(request);
  const estimate: UsageChange = {
    world: scope.world.name,
    agent: scope.agent.name,
    day: utcDay(now),
    inputTokens,
    outputTokens: 0,
    cachedInputTokens: 0,
    costUsd: costOf({ inputTokens, outputTokens: 0, cachedInputTokens: 0 }, priceOf(scope.agent)),
    calls: 1,
    estimatedCalls: 1,
  };
  const exceeded = await reserveDayBudget(runtime.world.store, scope.world, estimate, now);
  return exceeded ?? { estimate };
}

/**
 * Settle a charged call once it is over, on the day it was charged: to the provider's usage
 * where it reported one (the call then no longer counts as estimated), else the estimate keeps
 * its input and adds the streamed text as output (still estimated).
 */
export async function settleModelCall(
  runtime: AgentRuntime,
  scope: TurnScope,
  charged: ChargedCall,
  outcome: { usage: Usage | undefined; streamed: string },
): Promise<void> {
  const { estimate } = charged;
  const price = priceOf(scope.agent);
  const reported = outcome.usage !== undefined && outcome.usage.inputTokens + outcome.usage.outputTokens > 0;
  const usage: Usage =
    reported && outcome.usage
      ? outcome.usage
      : { inputTokens: estimate.inputTokens, outputTokens: estimateTextTokens(outcome.streamed), cachedInputTokens: 0 };
  await runtime.world.store.addUsage({
    world: estimate.world,
    agent: estimate.agent,
    day: estimate.day,
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
 * charged its estimate, without asking the budget again: the call was admitted already.
 */
export async function chargeResentCall(
  runtime: AgentRuntime,
  scope: TurnScope,
  charged: ChargedCall,
  broken: { usage: Usage | undefined; streamed: string },
): Promise<ChargedCall> {
  await settleModelCall(runtime, scope, charged, broken);
  await runtime.world.store.addUsage(charged.estimate);
  return { estimate: charged.estimate };
}
