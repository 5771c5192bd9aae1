import { GrowingText } from "./growing-text.js";
import type { FinishReason, LLMResponse, ModelToolCall, Usage } from "./model-provider.js";

/** Usage with every count at zero, for streams that never reported any. */
function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
}

/**
 * Collects what a stream produced into the one `LLMResponse` every provider returns, so the
 * three providers build it the same way.
 */
export class ResponseBuilder {
  private readonly text = new GrowingText();
  private readonly toolCalls: ModelToolCall[] = [];
  private usage: Usage | undefined;

  addText(text: string): void {
    this.text.append(text);
  }

  addToolCall(call: ModelToolCall): void {
    this.toolCalls.push(call);
  }

  setUsage(usage: Usage): void {
    this.usage = usage;
  }

  get hasUsage(): boolean {
    return this.usage !== undefined;
  }

  get currentUsage(): Usage {
    return this.usage ?? emptyUsage();
  }

  /** True when the model produced neither text nor a tool call. */
  get isEmpty(): boolean {
    return this.text.isEmpty && this.toolCalls.length === 0;
  }

  get toolCallCount(): number {
    return this.toolCalls.length;
  }

  /** The response; a `stop` with tool calls becomes `tool-calls` (some servers say `stop`). */
  build(finishReason: FinishReason, providerFields?: Record<string, unknown>): LLMResponse {
    const reason = finishReason === "stop" && this.toolCalls.length > 0 ? "tool-calls" : finishReason;
    return {
      text: this.text.text,
      toolCalls: [...this.toolCalls],
      usage: this.currentUsage,
      finishReason: reason,
      ...(providerFields === undefined || Object.keys(providerFields).length === 0 ? {} : { providerFields }),
    };
  }
}
