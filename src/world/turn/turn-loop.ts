import { parseChatKey } from "../chat-ref.js";
import { storedAnswer } from "../delivery/answer-draft.js";
import { chatJob, jobKey } from "../jobs.js";
import { budgetNotice } from "../limits/day-budget.js";
import type { MessageRecord, ToolCallRecord } from "../records.js";
import { parseAddresses } from "../routing/index.js";
import type { ModelStepOutcome, StepAnswer, ToolRunOutcome, TurnRunner } from "../world-context.js";
import {
  type ApprovalNext,
  askPastBudget,
  editOfCall,
  expireApproval,
  followBudgetDecision,
  parseBudgetApprovalKey,
  settleDecidedApproval,
} from "./approvals/index.js";
import { closeTurn, endWithLimit, failTurn, finishStoppedTurn, skipOpenCalls } from "./close-turn.js";
import { dispatchToolCalls } from "./dispatch-calls.js";
import { recordToolResult } from "./record-tool-result.js";
import { chainStarterName } from "./turn-chain.js";
import { stopOf } from "./turn-interrupts.js";
import { repeatGuardTripped } from "./repeat-guard.js";
import type { LoopParts, TurnScope } from "./turn-scope.js";
import { beginStep, markCallRunning, parkTurn, resumeTurn } from "./turn-state.js";

/** The id of the message a step produces: one per turn and step, so a retry cannot add a second. */
function stepMessageId(turnId: string, step: number): string {
  return `${turnId}#${step}`;
}

/**
 * The tool loop, one stored step at a time (docs/architecture.md, "Turns"): a model step's
 * outcome → dispatch of its calls (run, ask, or a result at once) → park or run → continue with
 * the next model step → close, with the limits and the repeat guard. Every transition of a turn
 * is made here (or in what this calls in src/world/turn); the model call and the tool run are
 * the workers' (src/agents, behind {@link TurnWorkers}).
 */
export class TurnLoop implements TurnRunner {
  constructor(private readonly loop: LoopParts) {}

  /** One model step of a turn (`created`: its turn was created by this step's job). */
  async step(turnId: string, step: number, options: { created?: boolean } = {}): Promise<void> {
    // Watched from before the turn is read: a /stop from then on reaches this step.
    const watch = this.loop.interrupts.watch(turnId);
    try {
      await this.watchedStep(turnId, step, watch.signal, options.created === true);
    } finally {
      watch.release();
    }
  }

  /**
   * Run one call whose approval (if any) is settled. A call found `running` was in flight when
   * the process died: it gets `interrupted` and is never run a second time.
   */
  async runTool(toolCallId: string): Promise<void> {
    const loop = this.loop;
    const { store, logger } = loop.world;
    const call = await store.getToolCall(toolCallId);
    if (!call) return;
    const scope = await loadTurnScope(loop, call.turnId);
    if (!scope) return;
    if (call.state === "done") {
      // Its result is stored (perhaps just before a restart): make sure the turn goes on.
      if (scope.turn.state !== "ended") await this.continueTurn(call.turnId, call.step);
      return;
    }
    const log = logger.child({ chat: call.chatKey, agent: call.agent, turn: call.turnId, tool: call.name });
    if (scope.turn.state === "ended") return;
    if (call.state === "running") {
      log.warn({ toolCallId }, "tool was running when the service stopped; not run again");
      const posted = await loop.workers.postLeftFiles(call, scope.turn, scope.world);
      await recordToolResult(
        loop.world,
        loop.outbox,
        call,
        "interrupted",
        `the service restarted while this tool was running; it was not run again${posted === undefined ? "" : `\n${posted}`}`,
      );
      await this.continueTurn(call.turnId, call.step);
      return;
    }
    // An approver's edit runs instead of the model's arguments, and the result says so.
    const edit = await editOfCall(loop.world, call);
    const checked = loop.workers.checkArguments(call.name, edit?.argumentsJson ?? call.argumentsJson);
    if (!checked.ok) {
      await recordToolResult(loop.world, loop.outbox, call, "invalid", checked.problem);
      await this.continueTurn(call.turnId, call.step);
      return;
    }
    // Watched before the call is marked running: a /stop from then on kills the run.
    const watch = loop.interrupts.watch(call.turnId);
    let outcome: ToolRunOutcome;
    try {
      // Stopped since the turn was read: the stop closes this call; it never runs.
      if ((await store.getTurn(call.turnId))?.stoppedBy) return;
      await markCallRunning(loop.world, call);
      const stopped = watch.signal;
      outcome = await loop.workers.runTool({
        call,
        turn: scope.turn,
        args: checked.args,
        world: scope.world,
        stopped,
        stopOf: () => stopOf(stopped),
      });
    } finally {
      watch.release();
    }
    if (outcome.kind === "stopped") {
      // The stop gave the call `interrupted` already; this keeps the closure if it could not.
      await recordToolResult(loop.world, loop.outbox, call, "interrupted", `stopped by ${outcome.stop.by.name}`);
      // A stop stored by another process is ended here, by the process that was running the tool.
      const turn = await store.getTurn(call.turnId);
      if (turn) await finishStoppedTurn(loop.world, loop.outbox, turn);
      return;
    }
    await recordToolResult(
      loop.world,
      loop.outbox,
      call,
      outcome.kind,
      outcome.text,
      edit === undefined ? {} : { note: edit.note },
    );
    await this.continueTurn(call.turnId, call.step);
  }

  /** A person decided an approval: the card, then the call runs or the turn goes on. */
  async approvalDecided(approvalId: string): Promise<void> {
    const { world, outbox } = this.loop;
    await this.follow(await settleDecidedApproval(world, outbox, approvalId, this.preview));
  }

  /** Nobody decided an approval in time. */
  async approvalExpire(approvalId: string): Promise<void> {
    const { world, outbox } = this.loop;
    await this.follow(await expireApproval(world, outbox, approvalId, this.preview));
  }

  /** A card shows the arguments as the policy previews them; unparsable ones as they came, cut. */
  private readonly preview = (tool: string, argumentsJson: string): string => {
    const checked = this.loop.workers.checkArguments(tool, argumentsJson);
    return checked.ok ? this.loop.workers.policy.preview(checked.args) : argumentsJson.slice(0, 500);
  };

  private follow(next: ApprovalNext): Promise<void> {
    switch (next.kind) {
      case "run":
        return this.runTool(next.toolCallId);
      case "continue":
        return this.continueTurn(next.turnId, next.step);
      case "budget":
        return this.followBudget(next.approvalId, next.approved);
      case "none":
        return Promise.resolve();
    }
  }

  /** A budget card decided or expired: the cap raised and the step run again, or the turn ended saying why. */
  private async followBudget(approvalId: string, approved: boolean): Promise<void> {
    const loop = this.loop;
    const approval = await loop.world.store.getApproval(approvalId);
    const key = approval ? parseBudgetApprovalKey(approval.toolCallId) : undefined;
    const scope = key ? await loadTurnScope(loop, key.turnId) : undefined;
    if (!approval || !key || !scope || scope.turn.state === "ended") return;
    const next = await followBudgetDecision(loop, scope, approval, key, approved);
    if (next.kind === "end") return endWithLimit(loop, scope, "budget", next.what);
    await resumeTurn(loop.world, scope.turn, scope.agent.limits.deadline);
    await this.step(scope.turn.id, next.step);
  }

  private async watchedStep(turnId: string, step: number, stopped: AbortSignal, created: boolean): Promise<void> {
    const loop = this.loop;
    const scope = await loadTurnScope(loop, turnId);
    if (!scope || scope.turn.state === "ended") return;
    const { store, logger, clock } = loop.world;
    const { turn, agent } = scope;

    // The step's answer (stored before a restart?) and the turn's trigger, in one read.
    const read = await store.getMessages([stepMessageId(turn.id, step), turn.triggerMessageId]);
    const answered = read.find((message) => message.id === stepMessageId(turn.id, step));
    const trigger = read.find((message) => message.id === turn.triggerMessageId);
    if (answered) {
      // The answer of this step was stored before a restart: carry on from there. Publishing
      // again is safe: delivery is idempotent by message id.
      logger
        .child({ chat: turn.chatKey, agent: agent.name, turn: turn.id, step })
        .info("step already answered; carrying on from the stored answer");
      const calls = await store.listToolCalls({ turnId: turn.id, step });
      const answer = storedAnswer(loop.outbox, turn.chatKey, answered.id);
      await this.settleStep(scope, step, answered, calls, answer, true);
      return;
    }
    if (step > agent.limits.maxSteps) {
      await endWithLimit(
        loop,
        scope,
        "max-steps",
        `reached the limit of ${agent.limits.maxSteps} model calls in one turn`,
      );
      return;
    }
    if (clock().getTime() > turn.deadlineAt.getTime()) {
      await endWithLimit(loop, scope, "deadline", `reached the turn's time limit`);
      return;
    }
    const problem = loop.workers.modelProblem(agent.name);
    if (problem !== undefined) {
      await failTurn(loop, scope, problem);
      return;
    }
    await beginStep(loop.world, turn.id, step);
    const outcome = await loop.workers.modelStep({
      turn,
      step,
      world: scope.world,
      trigger,
      created,
      stopped,
      stopOf: () => stopOf(stopped),
      starterName: () => chainStarterName(loop.world, trigger),
    });
    await this.afterModelStep(scope, step, outcome, trigger);
  }

  private async afterModelStep(
    scope: TurnScope,
    step: number,
    outcome: ModelStepOutcome,
    trigger: MessageRecord | undefined,
  ): Promise<void> {
    const loop = this.loop;
    switch (outcome.kind) {
      case "answered":
      case "calls":
        return this.settleStep(scope, step, outcome.message, outcome.calls, outcome.answer);
      case "failed":
        return failTurn(loop, scope, outcome.text);
      case "stopped": {
        // A stop stored by another process is ended here, by the process that was running the turn.
        const current = await loop.world.store.getTurn(scope.turn.id);
        if (current) await finishStoppedTurn(loop.world, loop.outbox, current);
        return;
      }
      case "limit": {
        const { limit } = outcome;
        if (limit.reason === "deadline") return endWithLimit(loop, scope, "deadline", "reached the turn's time limit");
        const { exceeded } = limit;
        if (limit.ask && (await askPastBudget(loop, scope, step, exceeded, trigger))) return;
        if (exceeded.cap?.scope === "person") {
          const name = await chainStarterName(loop.world, trigger);
          if (name !== undefined) exceeded.personName = name;
        }
        return endWithLimit(loop, scope, "budget", budgetNotice(exceeded, loop.world.clock()));
      }
    }
  }

  /**
   * What follows a stored answer: show its text, then end the turn (no calls; the answer is
   * routed to the agents it addresses) or dispatch its calls. Run again after a restart, it
   * changes nothing that was already done.
   */
  private async settleStep(
    scope: TurnScope,
    step: number,
    message: MessageRecord,
    calls: ToolCallRecord[],
    answer: StepAnswer,
    /** The answer was stored by an earlier run of this step (see the `message` event's `rerun`). */
    rerun = false,
  ): Promise<void> {
    const loop = this.loop;
    const { turn, agent } = scope;
    if (message.text.trim() !== "") await answer.publish(message, { rerun });
    else await answer.discard();
    if (calls.length === 0) {
      // Every turn ends through closeTurn: one owner of "this turn is over".
      // The turn as this step read it (no read again): closeTurn ends it only if nobody has.
      await closeTurn(loop.world, loop.outbox, turn, "answered", { kind: "skipped", detail: "the turn answered" });
      // An agent's answer starts turns only for the agents it addresses: one that addresses
      // nobody routes to no one, so its route step (a job and its reads) is not queued at all.
      // With policy hooks every answer is routed: the hooks see it (docs/hooks.md).
      if (parseAddresses(message.text).length === 0 && !loop.world.policy?.appliesTo(scope.world.name)) return;
      const route = { kind: "route", messageId: message.id } as const;
      await loop.world.queue.add(chatJob(turn.chatKey, route));
      return;
    }
    if ((await loop.world.store.getTurn(turn.id))?.stoppedBy) {
      // Stopped while the answer was being stored: its calls are closed, never run or asked for.
      await skipOpenCalls(loop.world, loop.outbox, calls, "the turn was stopped before this call was made");
      return;
    }
    await loop.outbox.publish(turn.chatKey, {
      type: "tool-calls",
      chat: parseChatKey(turn.chatKey),
      agent: agent.name,
      turnId: turn.id,
      calls: calls.map((call) => ({ id: call.id, name: call.name, argumentsJson: call.argumentsJson })),
    });
    if (calls.length > agent.limits.maxToolCallsPerStep) {
      await endWithLimit(
        loop,
        scope,
        "max-tool-calls",
        `asked for ${calls.length} tool calls at once; the limit is ${agent.limits.maxToolCallsPerStep}`,
      );
      return;
    }
    const dispatched = await dispatchToolCalls(loop, scope, step);
    if (dispatched === "answered-by-policy") {
      await closeTurn(loop.world, loop.outbox, turn.id, "answered", {
        kind: "skipped",
        detail: "the turn was answered by policy",
      });
      return;
    }
    if (dispatched === "parked") await parkTurn(loop.world, turn.id);
    await this.continueTurn(turn.id, step);
  }

  /**
   * When every call of a step has its result, the turn goes on with the next model step
   * (queued once: the job key is the step). A repeat-guard block ends the turn; with
   * `afterDenial: wait` a denial ends it quietly. While calls wait for approval, nothing happens.
   */
  private async continueTurn(turnId: string, step: number): Promise<void> {
    const loop = this.loop;
    const { store, queue } = loop.world;
    const scope = await loadTurnScope(loop, turnId);
    if (!scope || scope.turn.state === "ended") return;
    const calls = await store.listToolCalls({ turnId, step });
    if (calls.length === 0) return; // a text-only step ends its turn itself
    const results = await store.listToolResults(calls.map((call) => call.id));
    if (results.length < calls.length) return;

    const blocked = new Set(results.filter((result) => result.kind === "blocked").map((result) => result.toolCallId));
    const earlier = (await store.listToolCalls({ turnId })).filter((call) => call.step < step);
    const maxRepeats = scope.agent.limits.maxRepeats;
    if (
      calls.some((call) => blocked.has(call.id) && repeatGuardTripped(loop, maxRepeats, call, earlier) !== undefined)
    ) {
      await endWithLimit(loop, scope, "repeat-guard", "it called the same tool with the same arguments again");
      return;
    }
    if (scope.world.afterDenial === "wait" && results.some((result) => result.kind === "denied")) {
      await closeTurn(loop.world, loop.outbox, turnId, "denied", {
        kind: "skipped",
        detail: "the turn ended after a denial",
      });
      return;
    }
    await resumeTurn(loop.world, scope.turn, scope.agent.limits.deadline);
    const payload = { kind: "turn-step", turnId, step: step + 1 } as const;
    await queue.add({ queue: scope.turn.chatKey, key: jobKey(payload), payload });
  }
}

/** The turn with its agent and world, or undefined (logged) when there is none. */
async function loadTurnScope(loop: LoopParts, turnId: string): Promise<TurnScope | undefined> {
  const { store, worlds, logger, agents } = loop.world;
  let turn = await store.getTurn(turnId);
  if (!turn) {
    logger.warn({ turnId }, "no such turn");
    return undefined;
  }
  if (turn.stoppedBy && turn.state !== "ended") {
    // Stopped, but the stop did not get to end it (a crash): end it now; nothing of it runs.
    await finishStoppedTurn(loop.world, loop.outbox, turn);
    turn = (await store.getTurn(turnId)) ?? turn;
  }
  const worldName = await store.chatWorld(turn.chatKey);
  const world = worldName === undefined ? undefined : worlds.get(worldName);
  const agent = agents.get(turn.agent);
  if (!world || !agent) {
    logger.error({ turnId, agent: turn.agent }, "turn refers to an agent or world no longer configured");
    return undefined;
  }
  return { turn, agent, world };
}
