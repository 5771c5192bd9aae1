import { ProviderError } from "../errors/roundtable-error.js";
import type { LLMResponse, Usage } from "../providers/model-provider.js";
import type { MessageRecord, ToolCallRecord } from "../world/records.js";
import { parseChatKey } from "../world/chat-ref.js";
import { closeTurn } from "../world/turn/index.js";
import { chatJob } from "../world/jobs.js";
import { type AnswerDraft, openAnswer, storedAnswer } from "../world/delivery/answer-draft.js";
import { beginStep, stopOf } from "../world/turn/index.js";
import { showWorking } from "../world/working-status.js";
import { addressBack, parseAddresses } from "../world/routing/index.js";
import { type AgentRuntime, loadTurnScope, type TurnScope } from "./agent-runtime.js";
import { buildRequestView } from "./build-request-view.js";
import { dispatchToolCalls } from "./dispatch-tool-calls.js";
import { endWithLimit, failTurn } from "./end-turn.js";
import { finishStoppedAnswer, skipOpenCalls } from "./finish-stopped-answer.js";
import { linkedSignal } from "./linked-signal.js";
import { slotFreeStream } from "../world/queue/step-slots.js";
import { askPastBudget } from "./budget-ask.js";
import {
  type ChargedCall,
  chainStarterName,
  chargeResentCall,
  reserveModelCall,
  settleAndAlert,
} from "./charge-model-call.js";
import { type BudgetExceeded, budgetNotice } from "../world/limits/day-budget.js";

/** The id of the message a step produces: one per turn and step, so a retry cannot add a second. */
function stepMessageId(turnId: string, step: number): string {
  return `${turnId}#${step}`;
}

/**
 * One provider call of a turn: build the view, stream the answer to the chat, store it with
 * its tool calls, then either end the turn (text only) or hand the calls to the policy.
 */
export async function runModelStep(
  runtime: AgentRuntime,
  turnId: string,
  step: number,
  options: { created?: boolean } = {},
): Promise<void> {
  // Watched from before the turn is read: a /stop from then on reaches this step.
  const watch = runtime.interrupts.watch(turnId);
  try {
    await runWatchedStep(runtime, turnId, step, watch.signal, options.created === true);
  } finally {
    watch.release();
  }
}

async function runWatchedStep(
  runtime: AgentRuntime,
  turnId: string,
  step: number,
  stopped: AbortSignal,
  /** The turn was created by this step's job: no earlier run of the step left a draft. */
  created: boolean,
) {
  const scope = await loadTurnScope(runtime, turnId);
  if (!scope || scope.turn.state === "ended") return;
  const { store, logger, clock } = runtime.world;
  const { turn, agent } = scope;
  const log = logger.child({ chat: turn.chatKey, agent: agent.name, turn: turn.id, step });

  // The step's answer (stored before a restart?) and the turn's trigger, in one read.
  const read = await store.getMessages([stepMessageId(turn.id, step), turn.triggerMessageId]);
  const answered = read.find((message) => message.id === stepMessageId(turn.id, step));
  const trigger = read.find((message) => message.id === turn.triggerMessageId);
  if (answered) {
    // The answer of this step was stored before a restart: carry on from there. Publishing
    // again is safe: delivery is idempotent by message id.
    log.info("step already answered; carrying on from the stored answer");
    const calls = await store.listToolCalls({ turnId: turn.id, step });
    const answer = storedAnswer(runtime.outbox, turn.chatKey, answered.id);
    await settleStoredStep(runtime, scope, step, answered, calls, answer, true);
    return;
  }
  if (step > agent.limits.maxSteps) {
    await endWithLimit(
      runtime,
      scope,
      "max-steps",
      `reached the limit of ${agent.limits.maxSteps} model calls in one turn`,
    );
    return;
  }
  if (clock().getTime() > turn.deadlineAt.getTime()) {
    await endWithLimit(runtime, scope, "deadline", `reached the turn's time limit`);
    return;
  }
  const entry = runtime.providers.get(agent.provider);
  if (!entry) {
    await failTurn(
      runtime,
      scope,
      `${agent.name} has no usable model provider ("${agent.provider}" is not configured with a key).`,
    );
    log.error({ provider: agent.provider }, "agent's provider is not configured");
    return;
  }
  await beginStep(runtime.world, turn.id, step);

  const tools = runtime.tools.definitionsFor(agent.tools);
  // Read once: the view places the turn after it, the final text may address its author back.
  const room = { world: scope.world, agents: runtime.agents };
  const view = await buildRequestView(store, turn.chatKey, agent, tools, turn, room, { trigger });
  const limits = runtime.modelLimits(agent);
  const fitted = runtime.fitView(view, {
    provider: agent.provider,
    model: agent.model,
    providerType: entry.type,
    budgetTokens: limits.budgetTokens,
    reserveOutputTokens: limits.reserveOutputTokens,
    providerTypes: Object.fromEntries([...runtime.providers].map(([name, provider]) => [name, provider.type])),
  });
  if (fitted.cuts.length > 0) log.info({ cuts: fitted.cuts }, "request view cut to fit the model's budget");
  // Charged before it is sent (the estimate), settled once it is over, however it ends.
  const reserved = await reserveModelCall(runtime, scope, fitted.request);
  if (!("estimate" in reserved)) {
    log.warn(
      { limit: reserved.limit, used: reserved.used, allowed: reserved.allowed, needed: reserved.needed },
      "budget reached; no model call",
    );
    if (await askPastBudget(runtime, scope, step, reserved, trigger)) return;
    if (reserved.cap?.scope === "person") {
      const name = await chainStarterName(runtime, trigger);
      if (name !== undefined) reserved.personName = name;
    }
    await endWithLimit(runtime, scope, "budget", budgetNotice(reserved, clock()));
    return;
  }
  // A new charge when the call is sent again from the start (a `restart` part).
  let charged: ChargedCall = reserved;

  const chat = parseChatKey(turn.chatKey);
  const messageId = stepMessageId(turn.id, step);
  const answer = await openAnswer(runtime.world, runtime.outbox, {
    turn,
    step,
    messageId,
    agent: agent.name,
    noEarlierRun: created,
  });
  // Released when the model call is over (not AbortSignal.timeout/any: see linked-signal.ts).
  const deadline = linkedSignal([], turn.deadlineAt.getTime() - clock().getTime());
  const linked = linkedSignal([deadline.signal, runtime.stopSignal, stopped]);
  const signal = linked.signal;
  let response: LLMResponse | undefined;
  let reported: Usage | undefined;
  let streamed = "";
  // Set when a cut call's resend would pass a cap (it is then not sent).
  let pastBudget: BudgetExceeded | undefined;
  // Nothing shows in the chat until the first token: the status fills that gap (and the whole
  // call where the answer is posted whole).
  const working = showWorking(runtime.world, chat, agent.name, { kind: "thinking" });
  try {
    // Each part is awaited without the step's slot: a turn waiting for its model holds none.
    for await (const part of slotFreeStream(entry.provider.stream(fitted.request, signal))) {
      if (part.type === "text-delta") {
        if (answer.streaming) working.stop();
        streamed += part.text;
        answer.update(streamed);
        runtime.outbox.emitStream({
          type: "stream",
          chat,
          streamId: turn.id,
          agent: agent.name,
          phase: "delta",
          text: part.text,
        });
      } else if (part.type === "usage") {
        reported = part.usage;
      } else if (part.type === "restart") {
        // The call broke off and is sent again from the start (docs/model-errors.md; the retry
        // layer logged why): the broken attempt is charged, and the answer goes on in the same
        // post with the new text only (its next update replaces what the chat shows).
        const resent = await chargeResentCall(runtime, scope, charged, { usage: reported, streamed });
        if (!("estimate" in resent)) {
          // Past a cap: not sent again (leaving the loop ends the stream); the broken attempt is settled.
          pastBudget = resent;
          break;
        }
        charged = resent;
        streamed = "";
        reported = undefined;
        answer.update("");
        runtime.outbox.emitStream({
          type: "stream",
          chat,
          streamId: turn.id,
          agent: agent.name,
          phase: "start",
          text: "",
        });
      } else if (part.type === "finish") {
        response = part.response;
      }
    }
    if (!response && !pastBudget)
      throw new ProviderError("provider.malformed", "the provider stream ended without a response");
  } catch (error) {
    // The request was sent: it stays charged (the provider's usage if it said, else the estimate).
    await settleAndAlert(runtime, scope, charged, { usage: reported, streamed }, trigger).catch(
      (settleError: unknown) =>
        log.error({ err: settleError }, "could not settle a model call's usage; its estimate stays charged"),
    );
    const stop = stopOf(stopped);
    if (stop) return finishStoppedAnswer(runtime, scope, step, streamed, answer, stop);
    await answer.discard();
    if (runtime.stopSignal.aborted) throw error; // shutting down: the step runs again after restart
    if (deadline.signal.aborted) {
      await endWithLimit(runtime, scope, "deadline", "reached the turn's time limit");
      return;
    }
    // A provider's refusal (no key, rate limit, …) is an expected condition: one line, no stack.
    if (error instanceof ProviderError) log.error({ code: error.code, cause: error.message }, "provider call failed");
    else log.error({ err: error }, "provider call failed");
    await failTurn(runtime, scope, runtime.describeProviderError(error));
    return;
  } finally {
    working.stop();
    linked.release();
    deadline.release();
  }
  if (pastBudget || !response) {
    // Outside the try: the broken attempt is settled already, never twice.
    await answer.discard();
    if (pastBudget?.cap?.scope === "person") {
      const name = await chainStarterName(runtime, trigger);
      if (name !== undefined) pastBudget.personName = name;
    }
    log.warn({ limit: pastBudget?.limit }, "budget reached; a cut model call is not sent again");
    if (pastBudget) await endWithLimit(runtime, scope, "budget", budgetNotice(pastBudget, clock()));
    return;
  }
  runtime.outbox.emitStream({ type: "stream", chat, streamId: turn.id, agent: agent.name, phase: "end", text: "" });
  // Before the answer is stored: a call made again after a crash here was paid for twice, and counts twice.
  try {
    await settleAndAlert(
      runtime,
      scope,
      charged,
      {
        usage: response.usage,
        streamed: response.text + response.toolCalls.map((call) => call.name + call.argumentsJson).join(""),
      },
      trigger,
    );
  } catch (error) {
    // Not settled (the database away): the step runs again, and its stream must not post on
    // by itself meanwhile (the retry's answer would then show twice).
    await answer.discard().catch(() => undefined);
    throw error;
  }
  const stop = stopOf(stopped);
  if (stop) return finishStoppedAnswer(runtime, scope, step, response.text, answer, stop);

  const calls = response.toolCalls;
  let stored: Awaited<ReturnType<typeof store.addModelStep>>;
  try {
    const text = calls.length === 0 ? finalText(scope, trigger, response.text) : response.text;
    stored = await store.addModelStep(
      {
        id: stepMessageId(turn.id, step),
        chatKey: turn.chatKey,
        author: { kind: "agent", id: agent.name, name: agent.name },
        text,
        turnId: turn.id,
        provider: agent.provider,
        model: agent.model,
        ...(response.providerFields === undefined ? {} : { providerFields: response.providerFields }),
      },
      calls.map((call, index) => ({
        id: `${turn.id}#${step}.${index + 1}`,
        chatKey: turn.chatKey,
        agent: agent.name,
        turnId: turn.id,
        messageId: stepMessageId(turn.id, step),
        step,
        providerCallId: call.id,
        name: call.name,
        argumentsJson: call.argumentsJson,
        provider: agent.provider,
        ...(call.providerFields === undefined ? {} : { providerFields: call.providerFields }),
      })),
    );
  } catch (error) {
    // Storing failed (the step runs again): the draft shown so far must not stay behind.
    await answer.discard().catch(() => undefined);
    throw error;
  }
  log.info({ toolCalls: calls.length, usage: response.usage, finish: response.finishReason }, "model answered");

  await settleStoredStep(runtime, scope, step, stored.message, stored.calls, answer);
}

/**
 * What follows a stored answer: show its text, then end the turn (no calls; the answer is
 * routed to the agents it addresses) or hand its calls to the policy. Run again after a
 * restart, it changes nothing that was already done.
 */
async function settleStoredStep(
  runtime: AgentRuntime,
  scope: TurnScope,
  step: number,
  message: MessageRecord,
  calls: ToolCallRecord[],
  answer: AnswerDraft,
  /** The answer was stored by an earlier run of this step (see the `message` event's `rerun`). */
  rerun = false,
): Promise<void> {
  const { store } = runtime.world;
  const { turn, agent } = scope;
  const chat = parseChatKey(turn.chatKey);
  if (message.text.trim() !== "") await answer.publish(message, { rerun });
  else await answer.discard();
  if (calls.length === 0) {
    // Every turn ends through closeTurn: one owner of "this turn is over".
    // The turn as this step read it (no read again): closeTurn ends it only if nobody has.
    await closeTurn(runtime.world, runtime.outbox, turn, "answered", {
      kind: "skipped",
      detail: "the turn answered",
    });
    // An agent's answer starts turns only for the agents it addresses: one that addresses
    // nobody routes to no one, so its route step (a job and its reads) is not queued at all.
    // With policy hooks every answer is routed: the hooks see it (docs/hooks.md).
    if (parseAddresses(message.text).length === 0 && !runtime.world.policy?.appliesTo(scope.world.name)) return;
    const route = { kind: "route", messageId: message.id } as const;
    await runtime.world.queue.add(chatJob(turn.chatKey, route));
    return;
  }
  if ((await store.getTurn(turn.id))?.stoppedBy) {
    // Stopped while the answer was being stored: its calls are closed, never run or asked for.
    await skipOpenCalls(runtime, calls, "the turn was stopped before this call was made");
    return;
  }
  await runtime.outbox.publish(turn.chatKey, {
    type: "tool-calls",
    chat,
    agent: agent.name,
    turnId: turn.id,
    calls: calls.map((call) => ({ id: call.id, name: call.name, argumentsJson: call.argumentsJson })),
  });
  if (calls.length > agent.limits.maxToolCallsPerStep) {
    await endWithLimit(
      runtime,
      scope,
      "max-tool-calls",
      `asked for ${calls.length} tool calls at once; the limit is ${agent.limits.maxToolCallsPerStep}`,
    );
    return;
  }
  await dispatchToolCalls(runtime, scope, step);
}

/** An answer to another agent goes back to it (auto-mention); an empty answer says so. */
function finalText(scope: TurnScope, trigger: MessageRecord | undefined, text: string): string {
  const body = text.trim() === "" ? "(no answer)" : text;
  if (trigger?.author.kind !== "agent") return body;
  return addressBack(body, trigger.author.name, scope.agent.name, scope.world.agents);
}
