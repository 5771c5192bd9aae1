// `limits.overBudget: ask` (docs/budgets.md): a model call past a cap becomes an approval card
// for the world's approvers, with no tool call behind it. Its key (the approval's `toolCallId`)
// names the turn, the step, the cap and the period: `budget:<turn>#<step>:<cap>:<period>`.
import type { ApprovalRecord, TurnRecord } from "../../records.js";
import type { ApprovalState } from "./approval-types.js";
import { parseChatKey } from "../../chat-ref.js";
import { newId } from "../../ids.js";
import { jobKey } from "../../jobs.js";
import type { Outbox } from "../../outbox.js";
import type { WorldContext } from "../../world-context.js";
import type { WorldSettings } from "../../world-settings.js";
import { publishApprovalOutcome } from "./approval-outcome.js";
import { uniqueShortId } from "./request-approval.js";
import { parkTurn } from "../turn-state.js";

const prefix = "budget:";

/** The card's tool name: what the card and `/approvals` show for a budget approval. */
export const budgetTool = "budget";

/** Whether an approval is a budget card's (no tool call behind it). */
export function isBudgetApproval(approval: Pick<ApprovalRecord, "toolCallId">): boolean {
  return approval.toolCallId.startsWith(prefix);
}

/** The key of a turn's step's card for one cap and period. */
export function budgetApprovalKey(turnId: string, step: number, cap: string, period: string): string {
  return `${prefix}${turnId}#${step}:${cap}:${period}`;
}

/** The parts of a budget card's key. */
export interface BudgetApprovalKey {
  turnId: string;
  step: number;
  cap: string;
  period: string;
}

/** The parts of a budget card's key, read from it. */
export function parseBudgetApprovalKey(key: string): BudgetApprovalKey | undefined {
  const match = /^budget:(.+)#(\d+):([^:]+):([^:]+)$/.exec(key);
  if (!match) return undefined;
  const [, turnId = "", step = "0", cap = "", period = ""] = match;
  return { turnId, step: Number(step), cap, period };
}

/** What a budget card asks: the question, what it shows as arguments, and who the chain starter is. */
export interface BudgetAsk {
  step: number;
  cap: string;
  period: string;
  question: string;
  /** The chain starter's name (the card's "requested for"). */
  requestedFor: string;
}

/**
 * Ask the world's approvers to let a call past a cap: the approval stored (once per turn, step,
 * cap and period), the turn parked, the card published and its expiry queued. Returns the
 * state of an approval asked before for the same step and cap (then nothing is asked again),
 * or `asked`.
 */
export async function requestBudgetApproval(
  context: WorldContext,
  outbox: Outbox,
  turn: TurnRecord,
  world: Pick<WorldSettings, "name" | "approvalTimeout">,
  ask: BudgetAsk,
): Promise<ApprovalState | "asked"> {
  const { store, queue, clock } = context;
  const key = budgetApprovalKey(turn.id, ask.step, ask.cap, ask.period);
  const existing = (await store.listApprovals({ turnId: turn.id })).find((item) => item.toolCallId === key);
  if (existing && existing.state !== "pending") return existing.state;
  const approval =
    existing ??
    (await store.createApproval({
      id: newId(),
      shortId: await uniqueShortId(context, turn.chatKey),
      chatKey: turn.chatKey,
      world: world.name,
      agent: turn.agent,
      turnId: turn.id,
      toolCallId: key,
      requestedFor: turn.startedById,
      reason: ask.question,
      expiresAt: new Date(clock().getTime() + world.approvalTimeout),
    }));
  await parkTurn(context, turn.id);
  await outbox.publish(turn.chatKey, {
    type: "approval-requested",
    chat: parseChatKey(turn.chatKey),
    card: {
      approvalId: approval.id,
      shortId: approval.shortId,
      agent: turn.agent,
      tool: budgetTool,
      argumentsJson: JSON.stringify({ cap: ask.cap, period: ask.period }),
      argumentsPreview: ask.question,
      reason: ask.question,
      requestedFor: ask.requestedFor,
      choices: ["once", "deny"],
      expiresAt: approval.expiresAt,
    },
  });
  const expire = { kind: "approval-expire", approvalId: approval.id } as const;
  await queue.add({ queue: turn.chatKey, key: jobKey(expire), payload: expire, runAt: approval.expiresAt });
  return "asked";
}

/** The card of a decided (or expired) budget approval updated; what the agents side does next. */
export async function settleBudgetApproval(
  context: WorldContext,
  outbox: Outbox,
  approval: ApprovalRecord,
): Promise<{ kind: "budget"; approvalId: string; approved: boolean } | { kind: "none" }> {
  if (approval.state === "pending" || approval.state === "skipped") return { kind: "none" };
  await publishApprovalOutcome(context, outbox, approval, budgetTool, approval.reason);
  return { kind: "budget", approvalId: approval.id, approved: approval.state === "approved" };
}
