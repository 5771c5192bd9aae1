import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ToolOutcome } from "../tools/tool-source.js";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} from "./gen-ai-attributes.js";
import { roundtableTracer } from "./turn-trace.js";

/** Runs a tool inside an `execute_tool <name>` span; an outcome other than `ok` marks it an error. */
export async function traceToolCall(name: string, run: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  const span = roundtableTracer().startSpan(`${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${name}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      [ATTR_GEN_AI_TOOL_NAME]: name,
    },
  });
  try {
    const outcome = await run();
    if (outcome.kind !== "ok") {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute(ATTR_ERROR_TYPE, outcome.kind);
    }
    return outcome;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : "error");
    throw error;
  } finally {
    span.end();
  }
}
