import type { Attributes, Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace";
import type { Metrics } from "../metrics/metrics.js";
import {
  approvalWaitSpanName,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOOL_NAME,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from "./gen-ai-attributes.js";

/**
 * Latency histograms on `/metrics`, fed by the same spans that go to OTLP: model calls, tool
 * calls, whole turns and approval waits, in seconds.
 */
export class LatencyHistograms implements SpanProcessor {
  private readonly modelCalls;
  private readonly toolCalls;
  private readonly turns;
  private readonly approvalWaits;

  constructor(metrics: Metrics) {
    this.modelCalls = metrics.histogram("roundtable_model_call_seconds", "Model calls, request to end of stream.");
    this.toolCalls = metrics.histogram("roundtable_tool_call_seconds", "Tool runs, start to result.");
    this.turns = metrics.histogram("roundtable_turn_seconds", "Agent turns, start to end (approval waits included).");
    this.approvalWaits = metrics.histogram("roundtable_approval_wait_seconds", "Approval cards, request to decision.");
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    this.record(span.name, span.attributes, span.duration[0] + span.duration[1] / 1e9);
  }

  /** One ended span: its name, attributes and length in seconds. */
  record(name: string, attributes: Attributes, seconds: number): void {
    const text = (key: string) => String(attributes[key] ?? "");
    if (name === approvalWaitSpanName) {
      this.approvalWaits.observe({ state: text("roundtable.approval.state") }, seconds);
      return;
    }
    switch (attributes[ATTR_GEN_AI_OPERATION_NAME]) {
      case GEN_AI_OPERATION_NAME_VALUE_CHAT:
        this.modelCalls.observe(
          { provider: text(ATTR_GEN_AI_PROVIDER_NAME), model: text(ATTR_GEN_AI_REQUEST_MODEL) },
          seconds,
        );
        return;
      case GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL:
        this.toolCalls.observe({ tool: text(ATTR_GEN_AI_TOOL_NAME) }, seconds);
        return;
      case GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT:
        this.turns.observe({ agent: text(ATTR_GEN_AI_AGENT_NAME) }, seconds);
        return;
      default:
        return;
    }
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
