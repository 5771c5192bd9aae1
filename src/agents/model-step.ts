import { ProviderError } from "../errors/roundtable-error.js";
import type { LLMResponse, Usage } from "../providers/model-provider.js";
import type { MessageRecord } from "../world/records.js";
import { parseChatKey } from "../world/chat-ref.js";
import { openAnswer } from "../world/delivery/answer-draft.js";
import { showWorking } from "../world/working-status.js";
import { addressBack } from "../world/routing/index.js";
import type { ModelStepInput, ModelStepOutcome } from "../world/world-context.js";
import { type AgentRuntime, scopeOf, type TurnScope } from "./agent-runtime.js";
import { buildRequestView } from "./build-request-view.js";
import { showStoppedAnswer } from "./stopped-answer.js";
import { linkedSignal } from "./linked-signal.js";
import { slotFreeStream } from "../world/queue/step-slots.js";
import { type ChargedCall, chargeResentCall, reserveModelCall, settleAndAlert } from "./charge-model-call.js";
import type { BudgetExceeded } from "../world/limits/day-budget.js";

/** The id of the message a step produces: one per turn and step, so a retry cannot add a second. */
function stepMessageId(turnId: string, step: number): string {
  return `${turnId}#${step}`;
}

/**
 * One provider call of a turn (its loop checked the limits and began the step): build the
 * view, stream the answer to the chat, store it with its tool calls, and say how it went. The
 * answer is published by the loop, which then ends the turn or dispatches the calls.
 */
export async function runModelStep(runtime: AgentRuntime, input: ModelStepInput): Promise<ModelStepOutcome> {
  const { step, trigger, stopped, created } = input;
  const scope = scopeOf(runtime, input.turn, input.world);
  const { store, logger, clock } = runtime.world;
  const { turn, agent } = scope;
  const log = logger.child({ chat: turn.chatKey, agent: agent.name, turn: turn.id, step });
  const entry = runtime.providers.get(agent.provider);
  // The loop asked `modelProblem` first: a missing provider never gets here.
  if (!entry) return { kind: "failed", text: noProviderText(agent.name, agent.provider) };

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
    return { kind: "limit", limit: { reason: "budget", exceeded: reserved, ask: true } };
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
    // Read without the step's slot (a turn waiting for its model holds none): only a `restart`
    // part (its charge) takes it back; the text is shown without it.
    const parts = slotFreeStream(entry.provider.stream(fitted.request, signal), (part) => part.type === "restart");
    for await (const part of parts) {
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
    await settleAndAlert(runtime, scope, charged, { usage: reported, streamed }, input.starterName).catch(
      (settleError: unknown) =>
        log.error({ err: settleError }, "could not settle a model call's usage; its estimate stays charged"),
    );
    const stop = input.stopOf();
    if (stop) return showStoppedAnswer(runtime, scope, step, streamed, answer, stop);
    await answer.discard();
    if (runtime.stopSignal.aborted) throw error; // shutting down: the step runs again after restart
    if (deadline.signal.aborted) return { kind: "limit", limit: { reason: "deadline" } };
    // A provider's refusal (no key, rate limit, …) is an expected condition: one line, no stack.
    if (error instanceof ProviderError) log.error({ code: error.code, cause: error.message }, "provider call failed");
    else log.error({ err: error }, "provider call failed");
    return { kind: "failed", text: runtime.describeProviderError(error) };
  } finally {
    working.stop();
    linked.release();
    deadline.release();
  }
  if (pastBudget) {
    // Outside the try: the broken attempt is settled already, never twice.
    await answer.discard();
    log.warn({ limit: pastBudget.limit }, "budget reached; a cut model call is not sent again");
    return { kind: "limit", limit: { reason: "budget", exceeded: pastBudget, ask: false } };
  }
  // Programming error guard: a stream without a response threw inside the try already.
  if (!response) throw new ProviderError("provider.malformed", "the provider stream ended without a response");
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
      input.starterName,
    );
  } catch (error) {
    // Not settled (the database away): the step runs again, and its stream must not post on
    // by itself meanwhile (the retry's answer would then show twice).
    await answer.discard().catch(() => undefined);
    throw error;
  }
  const stop = input.stopOf();
  if (stop) return showStoppedAnswer(runtime, scope, step, response.text, answer, stop);

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

  const kind = stored.calls.length === 0 ? "answered" : "calls";
  return { kind, message: stored.message, calls: stored.calls, answer };
}

/** The chat text for an agent whose provider is not configured with a key. */
export function noProviderText(agent: string, provider: string): string {
  return `${agent} has no usable model provider ("${provider}" is not configured with a key).`;
}

/** An answer to another agent goes back to it (auto-mention); an empty answer says so. */
function finalText(scope: TurnScope, trigger: MessageRecord | undefined, text: string): string {
  const body = text.trim() === "" ? "(no answer)" : text;
  if (trigger?.author.kind !== "agent") return body;
  return addressBack(body, trigger.author.name, scope.agent.name, scope.world.agents);
}
