// `limits.overBudget: ask` in the turn's loop (docs/budgets.md): a call past a cap asks the
// world's approvers; an approval raises the cap for its period by `raiseBy` and the step runs
// again; a denial (or no decision in time) ends the turn with a notice and no model call.
import { budgetQuestion, capOwner, capsThatApply, raiseAmount } from "../../limits/budget-caps.js";
import type { BudgetExceeded } from "../../limits/day-budget.js";
import type { ApprovalRecord, MessageRecord } from "../../records.js";
import { type BudgetApprovalKey, requestBudgetApproval } from "./budget-approval.js";
import { chainStarterName } from "../turn-chain.js";
import type { LoopParts, TurnScope } from "../turn-scope.js";

/**
 * Ask to let a call past its cap (`overBudget: ask`): true when a card is out (the turn is
 * parked until it is decided), false when the world stops instead (`stop`, or this step's card
 * was decided already and the call still does not fit).
 */
export async function askPastBudget(
  loop: LoopParts,
  scope: TurnScope,
  step: number,
  exceeded: BudgetExceeded,
  trigger: MessageRecord | undefined,
): Promise<boolean> {
  const cap = exceeded.cap;
  if (scope.world.limits.overBudget !== "ask" || cap === undefined) return false;
  const personName = (await chainStarterName(loop.world, trigger)) ?? scope.turn.startedById;
  const raise = raiseAmount(cap, scope.world.limits.raiseBy ?? 100);
  const question = budgetQuestion(scope.agent.name, cap, exceeded.allowed, raise, personName);
  const asked = await requestBudgetApproval(loop.world, loop.outbox, scope.turn, scope.world, {
    step,
    cap: cap.name,
    period: cap.period,
    question,
    requestedFor: personName,
  });
  return asked === "asked" || asked === "pending";
}

/** What follows a decided budget card: run the step again (the cap raised), or end the turn saying why. */
export type BudgetFollow = { kind: "again"; step: number } | { kind: "end"; what: string };

/**
 * A budget card decided or expired: raise the cap and give back the step to run again, or say
 * why the turn ends (its loop resumes or ends it).
 */
export async function followBudgetDecision(
  loop: LoopParts,
  scope: TurnScope,
  approval: ApprovalRecord,
  key: BudgetApprovalKey,
  approved: boolean,
): Promise<BudgetFollow> {
  const { store } = loop.world;
  const { turn, world } = scope;
  const month = key.period.slice(0, 7);
  const subjects = { agent: turn.agent, chatKey: turn.chatKey, person: turn.startedById, day: key.period, month };
  const cap = capsThatApply(world.limits, subjects).find(
    (candidate) => candidate.name === key.cap && candidate.period === key.period,
  );
  if (!approved || !cap) {
    const who =
      approval.state === "expired" ? "nobody decided in time" : `denied by ${approval.decidedByName ?? "an approver"}`;
    // The person by name, as the card and the stop notice say it (not their platform id).
    const [trigger] = await store.getMessages([turn.triggerMessageId]);
    const personName = await chainStarterName(loop.world, trigger);
    const owner = capOwner(cap ?? { scope: "world", subject: "" }, personName);
    return {
      kind: "end",
      what: `${turn.agent}'s call would pass ${owner} budget (${key.cap}), and was not made (${who}).`,
    };
  }
  const amount = raiseAmount(cap, world.limits.raiseBy ?? 100);
  const raised = await store.raiseBudget({
    approvalId: approval.id,
    world: world.name,
    cap: cap.name,
    scope: cap.scope,
    subject: cap.subject,
    period: cap.period,
    unit: cap.unit,
    amount,
    decidedBy: approval.decidedByName ?? approval.decidedById ?? "",
  });
  if (raised)
    loop.world.logger.info({ approvalId: approval.id, cap: cap.name, amount }, "budget raised by an approval");
  return { kind: "again", step: key.step };
}
