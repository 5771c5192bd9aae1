/**
 * Runs that no person started: a schedule's occurrence or a trigger's request gives an agent a
 * turn in a chat (docs/schedules-and-triggers.md). A run is one stored row, unique per source,
 * name and occurrence (a due time, a delivery id), then one `autonomous-run` job in the chat's
 * queue that stores the run's `system` message and starts the turn, so a crash anywhere resumes
 * like any turn and a second process or a repeated delivery starts nothing.
 */
import { createHash } from "node:crypto";
import { type ChatRef, chatKey, parseChatKey } from "../chat-ref.js";
import { chatJob } from "../jobs.js";
import { dayBudgetExceeded } from "../limits/day-budget.js";
import type { Outbox } from "../outbox.js";
import { startTurn, turnIdFor } from "../turn/index.js";
import type { WorldContext } from "../world-context.js";
import { type AutonomousRunRecord, type AutonomousSource, autonomousAuthor } from "./autonomous-run-store.js";

export type { AutonomousRunRecord, AutonomousRunStore, AutonomousSource } from "./autonomous-run-store.js";
export { autonomousAuthor, autonomousLine, autonomousStarterId, isAutonomousStarter } from "./autonomous-run-store.js";

/** A run to record: where, who, and what the agent is told. */
export interface AutonomousRunRequest {
  source: AutonomousSource;
  name: string;
  occurrence: string;
  world: string;
  agent: string;
  chat: ChatRef;
  prompt: string;
}

/** The id of a run, the same in every process for the same source, name and occurrence. */
export function autonomousRunId(source: AutonomousSource, name: string, occurrence: string): string {
  const digest = createHash("sha256").update(`${source}\u0000${name}\u0000${occurrence}`).digest("hex");
  return `${source}-${digest.slice(0, 32)}`;
}

/**
 * Store a run (once per source, name and occurrence) and queue its job. A second call with the
 * same occurrence (another process, a repeated delivery) queues the same job key again, which
 * starts nothing; it completes a first call that died between the two writes.
 */
export async function recordAutonomousRun(
  context: Pick<WorldContext, "store" | "queue">,
  request: AutonomousRunRequest,
): Promise<{ runId: string; created: boolean }> {
  const id = autonomousRunId(request.source, request.name, request.occurrence);
  const { run, created } = await context.store.addAutonomousRun({
    id,
    source: request.source,
    name: request.name,
    occurrence: request.occurrence,
    world: request.world,
    agent: request.agent,
    chatKey: chatKey(request.chat),
    prompt: request.prompt,
  });
  await queueAutonomousRun(context, run);
  return { runId: run.id, created };
}

/** Queue a stored run's job (a no-op when it was queued before, also when it ran). */
export async function queueAutonomousRun(
  context: Pick<WorldContext, "queue">,
  run: Pick<AutonomousRunRecord, "id" | "chatKey">,
): Promise<void> {
  await context.queue.add(chatJob(run.chatKey, { kind: "autonomous-run", runId: run.id }));
}

/**
 * The `autonomous-run` step: the run's `system` message (stored once, shown once), then the
 * agent's turn, whose first step is queued behind the message's delivery so the chat shows the
 * line naming the run before the answer. Run again after a crash it finishes what is left (a
 * step's job key makes queueing it twice a no-op). No turn when the world's budget is spent.
 */
export async function startAutonomousRun(context: WorldContext, outbox: Outbox, runId: string): Promise<void> {
  const { store, logger, worlds, agents, queue } = context;
  const run = await store.getAutonomousRun(runId);
  if (!run) {
    logger.warn({ runId }, "autonomous run: no such run");
    return;
  }
  const chat = parseChatKey(run.chatKey);
  const log = logger.child({ platform: chat.platform, chat: run.chatKey, [run.source]: run.name, runId });
  const world = worlds.get(run.world);
  if (!world) {
    log.warn({ world: run.world }, "autonomous run: its world is no longer configured; no turn");
    return;
  }
  const turnId = turnIdFor(run.id, run.agent);
  const firstStep = chatJob(run.chatKey, { kind: "turn-step", turnId, step: 1 });
  if (await store.getTurn(turnId)) {
    await queue.add(firstStep);
    return;
  }
  if ((await store.chatWorld(run.chatKey)) === undefined)
    await store.ensureChat(run.chatKey, world.name, chat.platform);
  let message = await store.getMessage(run.id);
  if (!message) {
    const budget = await dayBudgetExceeded(store, world, context.clock());
    if (budget) {
      log.warn({ limit: budget.limit, used: budget.used }, "daily budget reached; the run starts no turn");
      return;
    }
    message = await store.addMessage({
      id: run.id,
      chatKey: run.chatKey,
      author: autonomousAuthor(run.source, run.name),
      text: run.prompt,
    });
    await outbox.publish(run.chatKey, { type: "system", chat, level: "notice", message });
  }
  const deadlineMs = agents.get(run.agent)?.limits.deadline ?? 300_000;
  await startTurn(context, message, run.agent, message.author.id, deadlineMs);
  await queue.add(firstStep);
  log.info({ agent: run.agent, turnId }, "turn started by a run of its own");
}

/**
 * At start: queue again the jobs of the runs stored in the last day, in case a process died
 * between storing a run and queueing it (a job key the queue knows makes this a no-op).
 */
export async function requeueRecentRuns(context: Pick<WorldContext, "store" | "queue" | "clock">): Promise<void> {
  const since = new Date(context.clock().getTime() - 24 * 3_600_000);
  for (const run of await context.store.listAutonomousRuns({ since, limit: 200 })) {
    await queueAutonomousRun(context, run);
  }
}
