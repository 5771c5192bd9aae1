import { ProviderError } from "../../src/errors/roundtable-error.js";
import type { LLMResponse, ModelProvider, ModelRequest, StreamPart } from "../../src/providers/model-provider.js";

/**
 * A model that streams its first words, then writes nothing more until it is aborted (or
 * `release()` is called): a slow answer to stop. Records every request and how each ended.
 */
export class SlowProvider implements ModelProvider {
  readonly name = "slow";
  readonly requests: ModelRequest[] = [];
  readonly endings: ("aborted" | "finished")[] = [];
  private releaseHold: () => void = () => {};
  private started: () => void = () => {};
  /** Resolves once the first words of the first answer are out. */
  readonly streaming = new Promise<void>((resolve) => {
    this.started = resolve;
  });

  constructor(
    private readonly firstWords = "Here is the first part of a long answer",
    private readonly rest = " and the rest.",
  ) {}

  /** Let a held answer finish. */
  release(): void {
    this.releaseHold();
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamPart> {
    this.requests.push(structuredClone(request));
    for (const word of this.firstWords.split(/(?= )/)) yield { type: "text-delta", text: word };
    this.started();
    await new Promise<void>((resolve) => {
      this.releaseHold = resolve;
      if (signal?.aborted) resolve();
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    if (signal?.aborted) {
      this.endings.push("aborted");
      throw new ProviderError("provider.aborted", "the request was aborted");
    }
    this.endings.push("finished");
    yield { type: "text-delta", text: this.rest };
    const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 };
    const response: LLMResponse = { text: this.firstWords + this.rest, toolCalls: [], usage, finishReason: "stop" };
    yield { type: "finish", response };
  }
}
