/**
 * The OpenTelemetry GenAI semantic conventions' attribute names and values that Roundtable's
 * spans carry, kept in one place. They are written out rather than imported from
 * `@opentelemetry/semantic-conventions/incubating`: that module is 770 kB of constants, read
 * and compiled at every start for these twelve (and the stable index, for `error.type`);
 * `tests/telemetry/gen-ai-attributes.test.ts` checks them against the package.
 */
export const ATTR_ERROR_TYPE = "error.type";

export const ATTR_GEN_AI_AGENT_NAME = "gen_ai.agent.name";
export const ATTR_GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id";
export const ATTR_GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const ATTR_GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
export const ATTR_GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons";
export const ATTR_GEN_AI_TOOL_NAME = "gen_ai.tool.name";
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
export const GEN_AI_OPERATION_NAME_VALUE_CHAT = "chat";
export const GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL = "execute_tool";
export const GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT = "invoke_agent";

/** The span of the time an approval card waited for a decision (no GenAI name for it). */
export const approvalWaitSpanName = "approval wait";
