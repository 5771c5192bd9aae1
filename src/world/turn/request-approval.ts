import type { ToolCallRecord, TurnRecord } from "../records.js";
import type { ChatRef } from "../chat-ref.js";
import { publishApprovalCard } from "../approvals/route-card.js";
import type { ApprovalCard } from "./approval-types.js";
import { newId, newShortId } from "../ids.js";
import { accessChannelFor } from "../access/access-channel.js";
import { choicesFor } from "./always-allow.js";
import { jobKey } from "../jobs.js";
import type { Outbox } from "../outbox.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";
import { chainHumans } from "./turn-chain.js";
import { awaitApproval } from "./turn-state.js";
import { queueApprovalTimers } from "./approval-timers.js";
import { cardExtras } from "./quorum.js";

/** What the card of a call shows, as the tool side prepared it. */
export interface ApprovalAsk {
  /** The validated arguments (shown whole where the card cannot hold them). */
  args: Record<string, unknown>;
  /** The arguments pretty-printed and truncated for display. */
  argumentsPreview: string;
  /** Why approval is needed (policy). */
  reason: string;
}

/**
 * Park a call behind an approval: the approval stored, the call `awaiting-approval`, the card
 * published and the expiry step queued for the deadline. Each part happens once: run again
 * (a step resumed after a restart) it finishes what is left.
 */
export async function requestApproval(
  context: WorldContext,
  outbox: Outbox,
  turn: TurnRecord,
  world: Pick<
    WorldSettings,
    | "name"
    | "approvalTimeout"
    | "approvers"
    | "allowAlways"
    | "quorum"
    | "remindMs"
    | "escalate"
    | "cardRouting"
    | "editArguments"
  >,
  call: ToolCallRecord,
  ask: ApprovalAsk,
): Promise<void> {
  const { store, queue, clock } = context;
  const existing = (await store.listApprovals({ turnId: turn.id })).find((item) => item.toolCallId === call.id);
  const approval =
    existing ??
    (await store.createApproval({
      id: newId(),
      shortId: await uniqueShortId(context, turn.chatKey),
      chatKey: turn.chatKey,
      world: world.name,
      agent: turn.agent,
      turnId: turn.id,
      toolCallId: call.id,
      requestedFor: turn.startedById,
      reason: ask.reason,
      expiresAt: new Date(clock().getTime() + world.approvalTimeout),
    }));
  await awaitApproval(context, call);
  if (approval.state !== "pending") return;
  const expiresAt = approval.expiresAt;
  const trigger = await store.getMessage(turn.triggerMessageId);
  const humans = trigger ? await chainHumans(context, trigger) : [];
  // In its chat, or where the world routes cards (approvers' DMs, the approvals chat); each
  // place's card has that platform's choices, and the step's reasoning (cardExtras).
  const extras = await cardExtras(context, world, approval, call);
  const cardFor = (chat: ChatRef): ApprovalCard => ({
    approvalId: approval.id,
    shortId: approval.shortId,
    agent: turn.agent,
    tool: call.name,
    argumentsJson: JSON.stringify(ask.args),
    argumentsPreview: ask.argumentsPreview,
    reason: ask.reason,
    requestedFor: humans[0] ?? turn.startedById,
    choices: choicesFor(world, accessChannelFor(context.channels, chat.platform)),
    expiresAt,
    inputs: world.editArguments === true ? ["reason", "edit"] : ["reason"],
    ...extras,
  });
  await publishApprovalCard(context, outbox, world, approval, cardFor, call.name);
  const expire = { kind: "approval-expire", approvalId: approval.id } as const;
  await queue.add({ queue: turn.chatKey, key: jobKey(expire), payload: expire, runAt: expiresAt });
  await queueApprovalTimers(context, world, approval);
}

/** A short id not yet used by an approval of the chat. */
export async function uniqueShortId(context: Pick<WorldContext, "store">, chatKey: string): Promise<string> {
  for (let length = 4; length < 16; length++) {
    for (let attempt = 0; attempt < 4; attempt++) {
      const candidate = newShortId(length);
      if (!(await context.store.getApprovalByShortId(chatKey, candidate))) return candidate;
    }
  }
  return newShortId(16);
}
