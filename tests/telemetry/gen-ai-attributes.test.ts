import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import * as incubating from "@opentelemetry/semantic-conventions/incubating";
import { describe, expect, it } from "vitest";
import * as ours from "../../src/telemetry/gen-ai-attributes.js";

describe("GenAI attribute names written out in src/telemetry", () => {
  it("are the semantic conventions' own names and values", () => {
    const pairs: [string, string][] = [
      [ours.ATTR_ERROR_TYPE, ATTR_ERROR_TYPE],
      [ours.ATTR_GEN_AI_AGENT_NAME, incubating.ATTR_GEN_AI_AGENT_NAME],
      [ours.ATTR_GEN_AI_CONVERSATION_ID, incubating.ATTR_GEN_AI_CONVERSATION_ID],
      [ours.ATTR_GEN_AI_OPERATION_NAME, incubating.ATTR_GEN_AI_OPERATION_NAME],
      [ours.ATTR_GEN_AI_PROVIDER_NAME, incubating.ATTR_GEN_AI_PROVIDER_NAME],
      [ours.ATTR_GEN_AI_REQUEST_MODEL, incubating.ATTR_GEN_AI_REQUEST_MODEL],
      [ours.ATTR_GEN_AI_RESPONSE_FINISH_REASONS, incubating.ATTR_GEN_AI_RESPONSE_FINISH_REASONS],
      [ours.ATTR_GEN_AI_TOOL_NAME, incubating.ATTR_GEN_AI_TOOL_NAME],
      [ours.ATTR_GEN_AI_USAGE_INPUT_TOKENS, incubating.ATTR_GEN_AI_USAGE_INPUT_TOKENS],
      [ours.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, incubating.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS],
      [ours.GEN_AI_OPERATION_NAME_VALUE_CHAT, incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT],
      [ours.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL, incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL],
      [ours.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT, incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT],
    ];
    for (const [written, published] of pairs) expect(written).toBe(published);
  });
});
