import type { ModelToolCall, Origin, ViewMessage } from "../../providers/model-provider.js";
import { estimateMessageTokens } from "./estimate-tokens.js";
import type { ViewCut, ViewTarget } from "./view-cut.js";

const knownTypes = new Set(["openai", "anthropic", "google", "scripted"]);

/** The wire protocol a message's origin was made under, if it can be told. */
function originType(origin: Origin, target: ViewTarget): string | undefined {
  return target.providerTypes?.[origin.provider] ?? (knownTypes.has(origin.provider) ? origin.provider : undefined);
}

/**
 * Why the target cannot take this message's tool calls as they are, or undefined when it can.
 *
 * The rule: tool calls keep their structure when they were made under the target's own wire
 * protocol (provider type), since call ids and argument formats are then what the target
 * issues itself; an origin of unknown type must be the target provider itself. Calls made
 * under another protocol are masked into text. So are all calls when the request offers no
 * tools (Anthropic refuses tool history without tool definitions). A message without an
 * origin is taken as the agent's own.
 */
function maskReason(origin: Origin | undefined, target: ViewTarget, toolsOffered: boolean): string | undefined {
  if (!toolsOffered) return "no tools are offered in this request";
  if (origin === undefined) return undefined;
  const type = originType(origin, target);
  if (type === undefined) {
    return origin.provider === target.provider ? undefined : `made under provider ${origin.provider} (type unknown)`;
  }
  return type === target.providerType
    ? undefined
    : `made under ${type} (${origin.provider}/${origin.model}), target is ${target.providerType}`;
}

/** Provider fields are bound to the provider and model that wrote them (thought signatures). */
function keepsProviderFields(origin: Origin | undefined, target: ViewTarget): boolean {
  return origin === undefined || (origin.provider === target.provider && origin.model === target.model);
}

function callAsText(call: ModelToolCall): string {
  return `[called tool ${call.name} with ${call.argumentsJson}]`;
}

/** A masked result as user text `[result of X: …]`, its images (if any) kept as the user's. */
function resultAsUser(result: Extract<ViewMessage, { role: "tool" }>): ViewMessage {
  const text = `[result of ${result.toolName}: ${result.text}]`;
  return result.images === undefined ? { role: "user", text } : { role: "user", text, images: result.images };
}

/**
 * The messages with tool history the target cannot take as it is turned into plain text:
 * masked calls join the assistant's text as `[called tool X with {…}]`, their results become
 * user text `[result of X: …]`. Pairs are enforced too: a call with no result right after it
 * and a result with no call before it are masked the same way, so no view ever carries half
 * a pair. Output messages correspond one to one to the input (same indexes); the input is
 * not changed.
 */
export function maskToolHistory(
  messages: readonly ViewMessage[],
  target: ViewTarget,
  toolsOffered: boolean,
): { messages: ViewMessage[]; cuts: ViewCut[] } {
  const out: ViewMessage[] = [...messages];
  const cuts: ViewCut[] = [];
  const record = (indexes: number[], reason: string, before: number) => {
    cuts.push({
      action: "masked",
      messages: indexes,
      reason,
      tokensBefore: before,
      tokensAfter: indexes.reduce((sum, index) => sum + estimateMessageTokens(out[index] as ViewMessage), 0),
    });
  };

  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index] as ViewMessage;
    if (message.role === "tool") {
      // Reached only when no assistant message before it claimed it.
      out[index] = resultAsUser(message);
      record([index], "a tool result without its call", estimateMessageTokens(message));
      continue;
    }
    if (message.role !== "assistant") continue;

    // The run of tool results that follows this message, and which of its calls they answer.
    const resultIndexes: number[] = [];
    for (let next = index + 1; next < messages.length && messages[next]?.role === "tool"; next += 1)
      resultIndexes.push(next);
    const callIds = new Set(message.toolCalls.map((call) => call.id));
    const answered = new Map<string, number>();
    for (const resultIndex of resultIndexes) {
      const result = messages[resultIndex] as Extract<ViewMessage, { role: "tool" }>;
      if (callIds.has(result.toolCallId) && !answered.has(result.toolCallId))
        answered.set(result.toolCallId, resultIndex);
    }

    const reason = message.toolCalls.length === 0 ? undefined : maskReason(message.origin, target, toolsOffered);
    const keepFields = keepsProviderFields(message.origin, target);
    const kept: ModelToolCall[] = [];
    const maskedCalls: ModelToolCall[] = [];
    for (const call of message.toolCalls) {
      if (reason === undefined && answered.has(call.id)) {
        kept.push(keepFields || call.providerFields === undefined ? call : withoutProviderFields(call));
      } else {
        maskedCalls.push(call);
      }
    }
    const keptIds = new Set(kept.map((call) => call.id));
    const maskedResults = resultIndexes.filter((resultIndex) => {
      const result = messages[resultIndex] as Extract<ViewMessage, { role: "tool" }>;
      return !(keptIds.has(result.toolCallId) && answered.get(result.toolCallId) === resultIndex);
    });

    const changed =
      maskedCalls.length > 0 ||
      (!keepFields &&
        (message.providerFields !== undefined || message.toolCalls.some((call) => call.providerFields !== undefined)));
    if (changed) {
      const { providerFields: _dropped, ...rest } = message;
      const text = [message.text, ...maskedCalls.map(callAsText)].filter((part) => part !== "").join("\n");
      out[index] = { ...(keepFields ? message : rest), text, toolCalls: kept };
    }
    for (const resultIndex of maskedResults) {
      const result = messages[resultIndex] as Extract<ViewMessage, { role: "tool" }>;
      out[resultIndex] = resultAsUser(result);
    }
    if (maskedCalls.length > 0 || maskedResults.length > 0) {
      const indexes = [index, ...maskedResults];
      const before = indexes.reduce((sum, at) => sum + estimateMessageTokens(messages[at] as ViewMessage), 0);
      const why =
        reason ?? (maskedCalls.length > 0 ? "a tool call without its result" : "a tool result without its call");
      record(indexes, why, before);
    }
    index += resultIndexes.length;
  }
  return { messages: out, cuts };
}

function withoutProviderFields(call: ModelToolCall): ModelToolCall {
  const { providerFields: _dropped, ...rest } = call;
  return rest;
}
