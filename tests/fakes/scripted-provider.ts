import { ProviderError } from "../../src/errors/roundtable-error.js";
import type { LLMResponse, ModelProvider, ModelRequest, StreamPart } from "../../src/providers/model-provider.js";

/** One scripted model answer. */
export interface ScriptedStep {
  text?: string;
  toolCalls?: { name: string; args: unknown; id?: string; rawArguments?: string }[];
  /** Throw this instead of answering. */
  error?: ProviderError;
  /** The usage reported (default 10 input and 5 output tokens). */
  usage?: { inputTokens: number; outputTokens: number };
  /** Wait for this promise before answering (to hold a turn mid-call). */
  hold?: Promise<void>;
}

export type Script = ScriptedStep[] | ((request: ModelRequest, index: number) => ScriptedStep);

/**
 * A hand-written fake model for loop tests: answers from a script (a list, or a function of
 * the request), streams text in small pieces, and records every request it got.
 */
export class ScriptedProvider implements ModelProvider {
  readonly requests: ModelRequest[] = [];
  private index = 0;

  constructor(
    private readonly script: Script,
    readonly name = "scripted",
  ) {}

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamPart> {
    this.requests.push(structuredClone(request));
    const index = this.index++;
    const step = typeof this.script === "function" ? this.script(request, index) : this.script[index];
    if (!step) throw new ProviderError("provider.malformed", `script has no step ${index + 1}`);
    if (step.hold) {
      // A held answer gives way to an abort, as a real HTTP stream would.
      await Promise.race([
        step.hold,
        new Promise<void>((resolve) => {
          if (signal?.aborted) resolve();
          signal?.addEventListener("abort", () => resolve(), { once: true });
        }),
      ]);
    }
    if (signal?.aborted) throw new ProviderError("provider.aborted", "aborted");
    if (step.error) throw step.error;
    const text = step.text ?? "";
    for (let offset = 0; offset < text.length; offset += 7) {
      yield { type: "text-delta", text: text.slice(offset, offset + 7) };
    }
    const toolCalls = (step.toolCalls ?? []).map((call, position) => ({
      id: call.id ?? `call_${index + 1}_${position + 1}`,
      name: call.name,
      argumentsJson: call.rawArguments ?? JSON.stringify(call.args),
    }));
    for (const call of toolCalls) yield { type: "tool-call", call };
    const usage = { inputTokens: 10, outputTokens: 5, ...step.usage, cachedInputTokens: 0 };
    yield { type: "usage", usage };
    const response: LLMResponse = {
      text,
      toolCalls,
      usage,
      finishReason: toolCalls.length > 0 ? "tool-calls" : "stop",
    };
    yield { type: "finish", response };
  }

  /** The last user/tool text the model saw, for script functions. */
  static lastText(request: ModelRequest): string {
    const last = request.messages.at(-1);
    return last ? last.text : "";
  }
}
