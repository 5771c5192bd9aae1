import type { ModelProvider, ModelRequest, StreamPart, Usage } from "../model-provider.js";
import { abortedError } from "../provider-error-map.js";
import { composeReply } from "./compose-reply.js";
import { readConversation } from "./read-conversation.js";
import { streamReply } from "./stream-reply.js";

export interface ScriptedModelProviderOptions {
  name: string;
  /** Pause between streamed pieces (default 40 ms; 0 in tests that want no pauses). */
  pieceDelayMs?: number;
}

/**
 * `type: scripted`: a built-in model made of a few rules (no network, no key, no cost), for
 * the demo and for trying a setup. It reads the request as a model would (the world briefing
 * for its name and the other agents, the offered tools, the conversation) and answers by
 * {@link composeReply}: it lists files and runs commands through `shell_cmd` when asked,
 * answers from the results, asks another agent when told to and reports the answer back to
 * the person who asked. Any model name is accepted.
 */
export class ScriptedModelProvider implements ModelProvider {
  readonly name: string;
  private readonly pieceDelayMs: number;

  constructor(options: ScriptedModelProviderOptions) {
    this.name = options.name;
    this.pieceDelayMs = options.pieceDelayMs ?? 40;
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<StreamPart> {
    if (signal?.aborted) throw abortedError(this.name);
    const reply = composeReply(readConversation(request));
    yield* streamReply(reply, usageOf(request, reply.text), this.name, { pieceDelayMs: this.pieceDelayMs }, signal);
  }
}

/** Tokens as the view's own estimate counts them (UTF-8 bytes / 4); nothing is cached. */
function usageOf(request: ModelRequest, answer: string): Usage {
  const input = Buffer.byteLength(JSON.stringify(request), "utf8");
  return {
    inputTokens: Math.ceil(input / 4),
    outputTokens: Math.ceil(Buffer.byteLength(answer, "utf8") / 4),
    cachedInputTokens: 0,
  };
}
