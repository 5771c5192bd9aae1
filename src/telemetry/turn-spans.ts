import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import type { Logger } from "../log/logger.js";
import { chatKey } from "../world/chat-ref.js";
import { standsForApproval } from "../world/events.js";
import type { EventListener } from "../world/outbox.js";
import { fixedIdGenerator } from "./fixed-id-generator.js";
import {
  approvalWaitSpanName,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from "./gen-ai-attributes.js";
import { roundtableTracer, turnSpanContext } from "./turn-trace.js";

/** What the spans of whole turns and approval waits need from storage. */
export interface TurnSpanSource {
  turnStartedAt(turnId: string): Promise<Date | undefined>;
  approval(approvalId: string): Promise<{ turnId: string; requestedAt: Date } | undefined>;
}

/**
 * Spans for what outlives one step (and maybe one process): a turn (`invoke_agent <agent>`,
 * from its start to `turn-ended`, with the ids every step's spans already point to) and an
 * approval's wait (from the card to the decision, in the turn's trace). Made from the events,
 * with the stored start times.
 */
export function turnSpans(source: TurnSpanSource, logger: Logger): EventListener {
  const tracer = roundtableTracer();
  const report = (error: unknown) => logger.warn({ err: error }, "a trace span could not be recorded");
  return (event) => {
    if (event.type === "turn-ended") {
      {
        const ended = event.createdAt;
        // The event carries the start; older stored events have it only in the turn's row.
        const startedAt = event.startedAt ? Promise.resolve(event.startedAt) : source.turnStartedAt(event.turnId);
        void startedAt
          .then((startTime) => {
            const span = fixedIdGenerator.startWith(turnSpanContext(event.turnId), () =>
              tracer.startSpan(
                `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${event.agent}`,
                {
                  root: true,
                  startTime: startTime ?? ended,
                  attributes: {
                    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
                    [ATTR_GEN_AI_AGENT_NAME]: event.agent,
                    [ATTR_GEN_AI_CONVERSATION_ID]: chatKey(event.chat),
                    "roundtable.turn.id": event.turnId,
                    "roundtable.turn.end_reason": event.reason,
                  },
                },
                ROOT_CONTEXT,
              ),
            );
            span.end(ended);
          })
          .catch(report);
        return;
      }
    }
    // One span per approval, not one per copy of its card (an approver's DM, the approvals chat).
    if (event.type === "approval-decided" && standsForApproval(event)) {
      {
        const { outcome } = event;
        void source
          .approval(outcome.approvalId)
          .then((approval) => {
            if (!approval) return;
            const parent = trace.setSpanContext(ROOT_CONTEXT, turnSpanContext(approval.turnId));
            const span = tracer.startSpan(
              approvalWaitSpanName,
              {
                startTime: approval.requestedAt,
                attributes: {
                  [ATTR_GEN_AI_AGENT_NAME]: outcome.agent,
                  [ATTR_GEN_AI_TOOL_NAME]: outcome.tool,
                  [ATTR_GEN_AI_CONVERSATION_ID]: chatKey(event.chat),
                  "roundtable.approval.id": outcome.approvalId,
                  "roundtable.approval.state": outcome.state,
                },
              },
              parent,
            );
            span.end(outcome.at);
          })
          .catch(report);
      }
    }
  };
}
