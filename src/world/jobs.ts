import { z } from "zod";
import type { QueueJob } from "./work-queue.js";

/**
 * Every kind of stored step, one union tagged by `kind`. A job's key makes it idempotent:
 * the same step is never queued twice, and a step run twice changes nothing the second time.
 */
export const jobPayloadSchema = z.discriminatedUnion("kind", [
  /** Decide who answers a stored message, and start their turns. */
  z.object({ kind: z.literal("route"), messageId: z.string() }),
  /** One provider call of a turn (step is 1-based). */
  z.object({ kind: z.literal("turn-step"), turnId: z.string(), step: z.number().int().min(1) }),
  /** Run one tool call that needs no (more) approval. */
  z.object({ kind: z.literal("run-tool"), toolCallId: z.string() }),
  /** Act on a recorded approval decision (run or deny the call). */
  z.object({ kind: z.literal("approval-decided"), approvalId: z.string() }),
  /** Expire an approval that nobody decided in time. */
  z.object({ kind: z.literal("approval-expire"), approvalId: z.string() }),
  /** Remind an approval's deciders once, or escalate it (`approvals.remind`, `escalate`). */
  z.object({ kind: z.literal("approval-remind"), approvalId: z.string() }),
  z.object({ kind: z.literal("approval-escalate"), approvalId: z.string() }),
  /** Show a stored event on its channel. */
  z.object({ kind: z.literal("deliver"), seq: z.number().int() }),
  /** Start the turn of a schedule's or trigger's stored run (src/world/autonomous/). */
  z.object({ kind: z.literal("autonomous-run"), runId: z.string() }),
]);

export type JobPayload = z.infer<typeof jobPayloadSchema>;

/** The dedupe key of a job. */
export function jobKey(payload: JobPayload): string {
  switch (payload.kind) {
    case "route":
      return `route:${payload.messageId}`;
    case "turn-step":
      return `turn:${payload.turnId}:${payload.step}`;
    case "run-tool":
      return `tool:${payload.toolCallId}`;
    case "approval-decided":
      return `decided:${payload.approvalId}`;
    case "approval-expire":
      return `expire:${payload.approvalId}`;
    case "approval-remind":
      return `remind:${payload.approvalId}`;
    case "approval-escalate":
      return `escalate:${payload.approvalId}`;
    case "deliver":
      return `deliver:${payload.seq}`;
    case "autonomous-run":
      return `run:${payload.runId}`;
  }
}

/**
 * A job's priority in its chat's queue: routing a message (which starts new turns) waits
 * behind every step already due in the chat (the turns under way, their tool runs, decided
 * approvals, deliveries). So a message's turn never starts while an earlier turn that is not
 * parked has a step to run, whichever order the queue was filled in (a route re-run after a
 * crash, the start-up sweep, several processes), and an answer waiting for its delivery is
 * shown before a later turn streams (docs/architecture.md, "Per-chat order").
 */
export function jobPriority(payload: JobPayload): number {
  return startsNewWork(payload.kind) ? 1 : 0;
}

/**
 * Whether a job of this kind starts new work (routing a message starts turns; a run of a
 * schedule or trigger starts one as routing does, and waits as routing waits) rather than going
 * on with work under way. Read off a payload not yet checked too (`kind` may be anything).
 */
export function startsNewWork(kind: unknown): boolean {
  return kind === "route" || kind === "autonomous-run";
}

/** The stored job of `payload` in chat `chatKey`'s queue: its key and its priority. */
export function chatJob(chatKey: string, payload: JobPayload, runAt?: Date): QueueJob {
  return {
    queue: chatKey,
    key: jobKey(payload),
    payload,
    ...(runAt === undefined ? {} : { runAt }),
    priority: jobPriority(payload),
  };
}
