/**
 * The OpenTelemetry GenAI semantic conventions' attribute names and values that Roundtable's
 * spans carry (from `@opentelemetry/semantic-conventions/incubating`, kept in one place).
 */
export { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
export {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from "@opentelemetry/semantic-conventions/incubating";

/** The span of the time an approval card waited for a decision (no GenAI name for it). */
export const approvalWaitSpanName = "approval wait";
