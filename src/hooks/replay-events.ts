/**
 * `roundtable replay` (docs/hooks.md, "Replay"): the stored history's `message` and `tool_call`
 * events, oldest first, fed through a policy module read-only (nothing is posted, stored or run;
 * `respond` is only recorded), and what the module would have done, counted per event kind.
 */
import type { ApprovalPolicyConfig } from "../tools/approval-policy.js";
import { decidePolicy } from "../tools/approval-policy.js";
import type { Logger } from "../log/logger.js";
import type { MessageRecord, ToolCallRecord } from "../world/records.js";
import type { HookDecision, HookOutcomeStore, HookToolCall, RoundtableEvent } from "../world/policy/event-policy.js";
import { hookChat, hookScope, messageEvent } from "../world/policy/message-policy.js";
import type { Store } from "../world/store.js";
import type { HookModule } from "./load-hook-module.js";
import { runModule } from "./module-policy.js";

/** Per event kind: how many were seen and what the module did with them. */
export interface ReplayCounts {
  events: number;
  kept: number;
  changed: number;
  responded: number;
  failed: number;
}

/** A tool call the module would have changed or stopped. */
export interface ReplayedToolCall {
  chat: string;
  agent: string;
  tool: string;
  /** `changed` (arguments or approval), `denied` (respond), `blocked` (the hook failed: closed). */
  outcome: "changed" | "denied" | "blocked";
  arguments: unknown;
  changedArguments?: unknown;
  approval?: { from: string; to: string };
  /** The respond text (denied) or the error (blocked). */
  text?: string;
}

export interface ReplayReport {
  since: string;
  world?: string;
  module: string;
  counts: Record<RoundtableEvent["type"], ReplayCounts>;
  toolCalls: ReplayedToolCall[];
  responded: { chat: string; messageId: string; text: string; sender?: string }[];
  failures: { kind: RoundtableEvent["type"]; chat: string; id: string; error: string }[];
}

interface TimedEvent {
  at: Date;
  seq: number;
  event: RoundtableEvent;
  chatKey: string;
  /** The key its live outcome is stored under (`message:<id>`, `tool_call:<turn>:<step>`). */
  key: string;
}

/** Replay the history stored since `since` through `module`. Reads only. */
export async function replayEvents(options: {
  store: Pick<Store, "listMessages" | "messageFiles"> & HookOutcomeStore;
  module: HookModule;
  since: Date;
  world?: string;
  tools: ApprovalPolicyConfig;
  logger: Logger;
}): Promise<ReplayReport> {
  const { store, module, logger } = options;
  const history = await store.replayHistory(options.since);
  const worldOf = (chatKey: string) => history.worldsOfChats.get(chatKey);
  const wanted = (chatKey: string) =>
    worldOf(chatKey) !== undefined && (options.world === undefined || worldOf(chatKey) === options.world);
  const withCalls = new Set(history.calls.map((call) => call.messageId));
  const events: TimedEvent[] = [];
  for (const message of history.messages) {
    if (!wanted(message.chatKey) || !routable(message, withCalls)) continue;
    events.push({
      at: message.createdAt,
      seq: message.seq,
      chatKey: message.chatKey,
      key: `message:${message.id}`,
      event: await messageEvent(store, worldOf(message.chatKey) ?? "", message),
    });
  }
  const steps = new Map<string, ToolCallRecord[]>();
  for (const call of history.calls) {
    if (!wanted(call.chatKey)) continue;
    const key = `${call.turnId}\u0000${call.step}`;
    steps.set(key, [...(steps.get(key) ?? []), call]);
  }
  for (const calls of steps.values()) {
    const first = calls[0] as ToolCallRecord;
    events.push({
      at: first.createdAt,
      seq: first.seq,
      chatKey: first.chatKey,
      key: `tool_call:${first.turnId}:${first.step}`,
      event: {
        type: "tool_call",
        createdBy: "agent",
        world: worldOf(first.chatKey) ?? "",
        chat: hookChat(first.chatKey),
        agent: first.agent,
        turnId: first.turnId,
        toolCalls: calls.map((call) => hookToolCall(call, options.tools)),
      },
    });
  }
  events.sort((a, b) => a.at.getTime() - b.at.getTime() || a.seq - b.seq);

  const report: ReplayReport = {
    since: options.since.toISOString(),
    ...(options.world === undefined ? {} : { world: options.world }),
    module: module.file,
    counts: { message: emptyCounts(), tool_call: emptyCounts() },
    toolCalls: [],
    responded: [],
    failures: [],
  };
  for (const timed of events) {
    const { chatKey } = timed;
    // The event as it came (the raw message, the model's arguments), not as a live policy
    // changed it: that is stored with the policy's outcome.
    const stored = await store.getHookOutcome(timed.key);
    const event = stored && stored.event.type === timed.event.type ? stored.event : timed.event;
    const scope = hookScope(store, event.world, chatKey, event.type === "tool_call" ? event.agent : undefined);
    const decision = await runModule(module, event, scope, logger);
    record(report, chatKey, event, decision);
  }
  return report;
}

function record(report: ReplayReport, chatKey: string, event: RoundtableEvent, decision: HookDecision): void {
  const counts = report.counts[event.type];
  counts.events += 1;
  const id = event.type === "message" ? event.message.id : event.turnId;
  switch (decision.outcome) {
    case "kept":
      counts.kept += 1;
      return;
    case "failed":
      counts.failed += 1;
      report.failures.push({ kind: event.type, chat: chatKey, id, error: decision.error });
      if (event.type === "tool_call")
        for (const call of event.toolCalls)
          report.toolCalls.push({
            chat: chatKey,
            agent: event.agent,
            tool: call.name,
            outcome: "blocked",
            arguments: call.arguments,
            text: decision.error,
          });
      return;
    case "responded":
      counts.responded += 1;
      report.responded.push({
        chat: chatKey,
        messageId: id,
        text: decision.message.text,
        ...(decision.message.sender ? { sender: decision.message.sender } : {}),
      });
      if (event.type === "tool_call")
        for (const call of event.toolCalls)
          report.toolCalls.push({
            chat: chatKey,
            agent: event.agent,
            tool: call.name,
            outcome: "denied",
            arguments: call.arguments,
            text: decision.message.text,
          });
      return;
    case "replaced": {
      counts.changed += 1;
      if (event.type !== "tool_call" || decision.event.type !== "tool_call") return;
      const after = new Map(decision.event.toolCalls.map((call) => [call.id, call]));
      for (const call of event.toolCalls) {
        const changed = after.get(call.id);
        if (!changed) continue;
        const argumentsChanged = JSON.stringify(changed.arguments) !== JSON.stringify(call.arguments);
        if (!argumentsChanged && changed.approval === call.approval) continue;
        report.toolCalls.push({
          chat: chatKey,
          agent: event.agent,
          tool: call.name,
          outcome: "changed",
          arguments: call.arguments,
          ...(argumentsChanged ? { changedArguments: changed.arguments } : {}),
          ...(changed.approval === call.approval ? {} : { approval: { from: call.approval, to: changed.approval } }),
        });
      }
    }
  }
}

/** Messages that would have been routed: not a step's text before its tool calls, not a tool's files, not a world notice. */
function routable(message: MessageRecord, withCalls: ReadonlySet<string>): boolean {
  if (withCalls.has(message.id) || message.id.endsWith(":tool-files")) return false;
  return message.author.kind !== "system" || message.id.endsWith(":policy");
}

function hookToolCall(call: ToolCallRecord, tools: ApprovalPolicyConfig): HookToolCall {
  let args: unknown = call.argumentsJson;
  try {
    args = JSON.parse(call.argumentsJson) as unknown;
  } catch {
    // Not JSON: as the model sent it.
  }
  const record =
    typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined;
  const approval = record && decidePolicy(call.name, record, tools).action === "run" ? "never" : "required";
  return { id: call.id, name: call.name, arguments: args, approval };
}

function emptyCounts(): ReplayCounts {
  return { events: 0, kept: 0, changed: 0, responded: 0, failed: 0 };
}
