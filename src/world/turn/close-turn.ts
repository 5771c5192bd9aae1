import type { MessageRecord, ToolCallRecord, TurnRecord } from "../records.js";
import { parseChatKey } from "../chat-ref.js";
import type { TurnEndReason } from "../events.js";
import type { Outbox } from "../outbox.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";
import { deciderCheck } from "./approvals/approval-rights.js";
import { publishApprovalOutcome } from "./approvals/approval-outcome.js";
import { recordToolResult } from "./record-tool-result.js";
import type { TurnInterrupts } from "./turn-interrupts.js";
import type { LoopParts, TurnScope } from "./turn-scope.js";
import { postWorldNotice } from "../world-notice.js";

/** How the calls and approvals a turn leaves open are closed. */
export interface OpenWork {
  /** Every open call gets `skipped: detail`; every pending approval is closed as `skipped`. */
  kind: "skipped";
  detail: string;
  /** The person who closed the turn (`/stop`, a new message): recorded on its approvals, and the cards say why. */
  by?: { id: string; name: string };
  /** `/stop`: a call that is running gets `interrupted: detail` (its run was cut), before anything else closes. */
  interruptRunning?: boolean;
}

/**
 * The one way a turn ends (answered, a limit, an error, superseded, a reset, `/stop`: "end
 * this turn now with reason X"). It keeps the closure invariant: every call of the turn that
 * has no result gets a synthetic one (`kind: detail`), every pending approval of the turn is
 * closed and its card updated, then the turn is marked ended and `turn-ended` is published.
 * Idempotent: the turn is marked ended only if it is not yet (`Store.endTurn`), and only the
 * call that marked it publishes. A step that holds the turn as it read it passes the record
 * (one read fewer); a turn another process ended meanwhile is then left as that one ended it.
 */
export async function closeTurn(
  context: WorldContext,
  outbox: Outbox,
  of: string | TurnRecord,
  reason: TurnEndReason,
  open: OpenWork,
): Promise<void> {
  const { store, clock } = context;
  const turn = typeof of === "string" ? await store.getTurn(of) : of;
  if (!turn || turn.state === "ended") return;
  const turnId = turn.id;
  const ended = {
    type: "turn-ended",
    chat: parseChatKey(turn.chatKey),
    agent: turn.agent,
    turnId,
    reason,
    startedAt: turn.startedAt,
  } as const;
  if (!open.interruptRunning) {
    // Most turns end with nothing open (an answer after every call had its result): the look for
    // open work, the end and its event in one go (one statement on PostgreSQL).
    const settled = await store.endSettledTurn(turnId, { endReason: reason, endedAt: clock() }, ended);
    if (!settled.open) {
      if (settled.stored) await outbox.published(turn.chatKey, settled.stored);
      return;
    }
  }
  await closeOpenWork(context, outbox, turnId, open);
  if (!(await store.endTurn(turnId, { endReason: reason, endedAt: clock() }))) return;
  await outbox.publish(turn.chatKey, ended);
}

/** Every open call of the turn gets its synthetic result, every pending approval is closed (see {@link closeTurn}). */
async function closeOpenWork(context: WorldContext, outbox: Outbox, turnId: string, open: OpenWork): Promise<void> {
  const { store, clock } = context;
  if (open.interruptRunning) {
    for (const call of await store.listToolCalls({ turnId })) {
      if (call.state === "running") await recordToolResult(context, outbox, call, "interrupted", open.detail);
    }
  }
  for (const approval of await store.listApprovals({ turnId, states: ["pending"] })) {
    const decided = await store.decideApproval(approval.id, {
      state: "skipped",
      actorId: open.by?.id ?? "roundtable",
      actorName: open.by?.name ?? "roundtable",
      note: open.detail,
      at: clock(),
    });
    if (!decided.won) continue;
    const tool = (await store.getToolCall(approval.toolCallId))?.name ?? "tool";
    await publishApprovalOutcome(context, outbox, decided.approval, tool, "", { note: open.detail });
  }
  for (const call of await store.listToolCalls({ turnId })) {
    if (call.state === "done") continue;
    await recordToolResult(context, outbox, call, open.kind, open.detail);
  }
}

/**
 * Ends a turn that carries a stop marker through {@link closeTurn}: a running tool's call gets
 * `interrupted`, every other open call and pending approval `skipped` (the cards say who
 * stopped them). Idempotent: the steps run it when they find a marker on a turn a crash left
 * unended.
 */
export async function finishStoppedTurn(context: WorldContext, outbox: Outbox, turn: TurnRecord): Promise<void> {
  const by = turn.stoppedBy;
  if (!by || turn.state === "ended") return;
  const detail = `stopped by ${by.name}`;
  await closeTurn(context, outbox, turn.id, "stopped", { kind: "skipped", detail, by, interruptRunning: true });
}

/**
 * `/reset`: every turn of the chat parked on a pending approval ends through {@link closeTurn}
 * (`skipped`, each card says why: `note`). Returns how many turns were closed. Idempotent: a
 * second run finds nothing pending.
 */
export async function closePendingApprovals(
  context: WorldContext,
  outbox: Outbox,
  chatKey: string,
  note: string,
): Promise<number> {
  const pending = await context.store.listApprovals({ chatKey, states: ["pending"] });
  const turnIds = [...new Set(pending.map((approval) => approval.turnId))];
  for (const turnId of turnIds) {
    await closeTurn(context, outbox, turnId, "reset", { kind: "skipped", detail: note });
  }
  return turnIds.length;
}

/** Calls of a stopped turn that have no result get `skipped` (every call gets one result). */
export async function skipOpenCalls(
  context: WorldContext,
  outbox: Outbox,
  calls: ToolCallRecord[],
  detail: string,
): Promise<void> {
  for (const call of calls) {
    const current = await context.store.getToolCall(call.id);
    if (current && current.state !== "done") {
      await recordToolResult(context, outbox, current, "skipped", detail);
    }
  }
}

/**
 * `/stop` for one turn: store the stop marker first (so nothing of the turn runs afterwards,
 * in this process, in another, or after a crash), abort its running work in this process,
 * then end it. Undefined when the turn was already ended or stopped.
 */
export async function stopTurn(
  context: WorldContext,
  outbox: Outbox,
  interrupts: TurnInterrupts,
  turnId: string,
  by: { id: string; name: string },
): Promise<TurnRecord | undefined> {
  const marked = await context.store.markTurnStopped(turnId, by);
  if (!marked) return undefined;
  context.logger.info({ chat: marked.chatKey, agent: marked.agent, turn: turnId, by: by.id }, "turn stopped");
  interrupts.interrupt({ turnId, by });
  await finishStoppedTurn(context, outbox, marked);
  return marked;
}

/**
 * A new human message to an agent supersedes that agent's turns parked on approvals in the chat
 * that the same person started, or whose every pending approval they may decide (tool loop
 * point 8): `/stop` and `/reset` refuse to close other people's, and so does a plain message.
 * Other people's parked turns stay parked. Each card says who wrote to whom.
 */
export async function supersedeParkedTurns(
  context: WorldContext,
  outbox: Outbox,
  world: WorldSettings,
  message: MessageRecord,
  agent: string,
  /** The agent's parked turns in the chat, when the caller read them already. */
  parked?: TurnRecord[],
): Promise<void> {
  const { store } = context;
  const open = parked ?? (await store.listTurns({ chatKey: message.chatKey, agent, states: ["parked"] }));
  if (open.length === 0) return;
  const chat = parseChatKey(message.chatKey);
  const sender = { id: message.author.id, displayName: message.author.name, isBot: false };
  const mayDecide = deciderCheck(context, world, chat, sender);
  for (const turn of open) {
    if (turn.startedById !== sender.id) {
      const pending = await store.listApprovals({ turnId: turn.id, states: ["pending"] });
      let mayCloseAll = pending.length > 0;
      for (const approval of pending) {
        if (!mayCloseAll) break;
        mayCloseAll = await mayDecide(approval.requestedFor);
      }
      if (!mayCloseAll) continue;
    }
    await closeTurn(context, outbox, turn.id, "superseded", {
      kind: "skipped",
      detail: supersededNote(message.author.name, agent),
      by: { id: sender.id, name: message.author.name },
    });
  }
}

/** Why a superseded card was skipped: `Ana wrote to alice again`. */
function supersededNote(person: string, agent: string): string {
  return `${person} wrote to ${agent} again`;
}

/** End the turn because a limit was reached, saying which. */
export async function endWithLimit(
  loop: Pick<LoopParts, "world" | "outbox">,
  scope: TurnScope,
  reason: "max-steps" | "deadline" | "max-tool-calls" | "repeat-guard" | "budget",
  what: string,
): Promise<void> {
  // The budget notice is the world's, not the agent's: it already says all.
  const notice = reason === "budget" ? what : `${scope.agent.name} stopped: ${what}.`;
  await postWorldNotice(loop.world, loop.outbox, {
    chat: parseChatKey(scope.turn.chatKey),
    id: noticeId(scope, "limit"),
    text: notice,
    turnId: scope.turn.id,
  });
  await closeTurn(loop.world, loop.outbox, scope.turn.id, reason, {
    kind: "skipped",
    detail: `the turn ended: ${what}`,
  });
}

export async function failTurn(
  loop: Pick<LoopParts, "world" | "outbox">,
  scope: TurnScope,
  text: string,
): Promise<void> {
  await postWorldNotice(loop.world, loop.outbox, {
    chat: parseChatKey(scope.turn.chatKey),
    id: noticeId(scope, "error"),
    text,
    level: "error",
    turnId: scope.turn.id,
  });
  await closeTurn(loop.world, loop.outbox, scope.turn.id, "provider-error", {
    kind: "skipped",
    detail: "the turn ended after a provider error",
  });
}

/** The id of a turn's own notice: once per turn, kind and step. */
function noticeId(scope: TurnScope, what: string): string {
  return `${scope.turn.id}:${what}:${scope.turn.step}`;
}
