import { assertNever } from "../errors/assert-never.js";
import { errorMessage, RoundtableError } from "../errors/roundtable-error.js";
import { requeueRecentRuns, startAutonomousRun } from "./autonomous/autonomous-run.js";
import { Delivery } from "./delivery/deliver.js";
import { AnswerDrafts } from "./delivery/drafts.js";
import { Ingress } from "./ingress/ingress.js";
import { jobPayloadSchema, startsNewWork } from "./jobs.js";
import { Outbox } from "./outbox.js";
import { recoverLostSteps } from "./queue/recover-lost-steps.js";
import type { SlotRank } from "./queue/step-slots.js";
import { routeStoredMessage } from "./ingress/route-message.js";
import { runApprovalTimer, TurnInterrupts } from "./turn/index.js";
import { TurnLoop } from "./turn/turn-loop.js";
import type { ClaimedJob } from "./work-queue.js";
import type { TurnRunner, TurnWorkers, WorldContext } from "./world-context.js";

/**
 * The world: ingress for channels, the outbox, and the handler of every stored step. Turn
 * steps go to the injected {@link TurnRunner} (the turn's loop over the agents' workers,
 * {@link WorldEngine.turnLoop}); routing and delivery are the world's own.
 */
export class WorldEngine {
  readonly outbox: Outbox;
  /** The `deliver` steps: each stored event shown in its chat, once. */
  readonly delivery: Delivery;
  readonly ingress: Ingress;
  /** Reaches the running work of a turn that `/stop` ends (here at once, from elsewhere by a poll). */
  readonly interrupts: TurnInterrupts;
  private runner: TurnRunner | undefined;

  constructor(readonly context: WorldContext) {
    this.outbox = new Outbox(context, new AnswerDrafts(context));
    this.delivery = new Delivery(context, this.outbox);
    this.interrupts = new TurnInterrupts(context.store, context.logger);
    this.ingress = new Ingress(context, this.outbox, this.interrupts);
  }

  /** The turn's loop (src/world/turn/turn-loop.ts) over the workers behind the port (src/agents). */
  turnLoop(workers: TurnWorkers): TurnRunner {
    return new TurnLoop({ world: this.context, outbox: this.outbox, workers, interrupts: this.interrupts });
  }

  /** The turn runner (the loop, perhaps traced); set once before the queue starts. */
  setTurnRunner(runner: TurnRunner): void {
    this.runner = runner;
  }

  /** Start running stored steps (unfinished ones from before a restart included). */
  async start(): Promise<void> {
    await recoverLostSteps(this.context);
    await requeueRecentRuns(this.context);
    const slots = this.context.stepSlots;
    await this.context.queue.start(
      slots ? (job) => slots.run(() => this.handle(job), slotRankOf(job)) : (job) => this.handle(job),
    );
  }

  async stop(): Promise<void> {
    await this.context.queue.stop();
    this.interrupts.close();
  }

  /** One stored step. Throwing makes the queue retry it later. */
  async handle(job: ClaimedJob): Promise<void> {
    const parsed = jobPayloadSchema.safeParse(job.payload);
    if (!parsed.success) {
      this.context.logger.error({ key: job.key, problem: errorMessage(parsed.error) }, "malformed job dropped");
      return;
    }
    const payload = parsed.data;
    const runner = this.runner;
    // Programming error: the app sets the runner before it starts the queue (src/app/roundtable.ts).
    if (!runner) throw new RoundtableError("internal", "world engine has no turn runner");
    switch (payload.kind) {
      case "route": {
        // The first step of each turn it started runs in this job: one job and one hop fewer
        // per message. Until they ran the route job is not done, so a crash re-runs the
        // routing, which runs the first step of every unfinished turn it finds again, here.
        const started = await routeStoredMessage(this.context, this.outbox, payload.messageId);
        for (const { turnId, created } of started) await runner.step(turnId, 1, { created });
        return;
      }
      case "autonomous-run":
        return startAutonomousRun(this.context, this.outbox, payload.runId);
      case "deliver":
        // A job on its second or later attempt may follow a run that posted and died.
        return this.delivery.deliver(payload.seq, job.attempts > 1);
      case "turn-step":
        return runner.step(payload.turnId, payload.step);
      case "run-tool":
        return runner.runTool(payload.toolCallId);
      case "approval-decided":
        return runner.approvalDecided(payload.approvalId);
      case "approval-expire":
        return runner.approvalExpire(payload.approvalId);
      case "approval-remind":
      case "approval-escalate":
        return runApprovalTimer(this.context, this.outbox, payload.kind, payload.approvalId);
      default:
        return assertNever(payload, "job");
    }
  }
}

/**
 * A job that starts new work (the queue's later priority: `jobPriority`) waits for a slot behind
 * the work under way (src/world/queue/step-slots.ts).
 */
function slotRankOf(job: ClaimedJob): SlotRank {
  const payload: unknown = job.payload;
  const kind = typeof payload === "object" && payload !== null ? (payload as { kind?: unknown }).kind : undefined;
  return startsNewWork(kind) ? "start" : "next";
}
