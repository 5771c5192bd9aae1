import { createHash } from "node:crypto";
import { context, ROOT_CONTEXT, type SpanContext, TraceFlags, trace } from "@opentelemetry/api";

/**
 * A turn's trace and span ids, derived from its id: every process that runs a step of the turn
 * (after a crash, on another replica) puts its spans into the same trace, under the same turn
 * span, without storing anything.
 */
export function turnSpanContext(turnId: string): SpanContext {
  const digest = createHash("sha256").update(`roundtable-turn:${turnId}`).digest("hex");
  return { traceId: digest.slice(0, 32), spanId: digest.slice(32, 48), traceFlags: TraceFlags.SAMPLED, isRemote: true };
}

/** Runs `work` with the turn's span as the parent of every span started inside it. */
export function inTurnTrace<T>(turnId: string, work: () => Promise<T>): Promise<T> {
  return context.with(trace.setSpanContext(ROOT_CONTEXT, turnSpanContext(turnId)), work);
}

/** The turn a stored tool call belongs to: its id is `<turn id>#<step>.<index>`. */
export function turnOfToolCall(toolCallId: string): string {
  const end = toolCallId.lastIndexOf("#");
  return end < 0 ? toolCallId : toolCallId.slice(0, end);
}

/** The tracer every Roundtable span comes from (a no-op until telemetry is started). */
export function roundtableTracer() {
  return trace.getTracer("roundtable");
}
