import type { FakeReply } from "../tests/fakes/model-fake-server.js";

/**
 * How fast the bench's fake model answers. `instant`: at once (two text pieces). `real`: as a
 * real model does, 800 ms to the first token, then 50 tokens a second, 400 tokens an answer
 * (about 8.9 s an answer).
 */
export type ModelLatency = "instant" | "real";

export const realModel = { firstTokenMs: 800, tokensPerSecond: 50, answerTokens: 400 } as const;

/** Seconds a `real` answer takes at the fake, from the request to its last token. */
export const realAnswerSeconds =
  (realModel.firstTokenMs + (realModel.answerTokens * 1_000) / realModel.tokensPerSecond) / 1_000;

/** The answer to the message with `token`: `re <token> …ok`, whole or token by token. */
export function benchReply(token: string, latency: ModelLatency): FakeReply {
  if (latency === "instant") return { type: "reply", text: [`re ${token} `, "ok"] };
  const words = Array.from({ length: realModel.answerTokens - 2 }, () => "word ");
  return {
    type: "reply",
    text: [`re ${token} `, ...words, "ok"],
    firstFrameDelayMs: realModel.firstTokenMs,
    frameDelayMs: 1_000 / realModel.tokensPerSecond,
  };
}

/** Counts the model streams open at the fake (requests not yet answered to their end). */
export class OpenStreams {
  open = 0;
  private readonly samples: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  started(): void {
    this.open++;
  }

  ended(): void {
    this.open = Math.max(0, this.open - 1);
  }

  /** Samples the open count every 100 ms until {@link stop}. */
  sample(): void {
    this.samples.length = 0;
    this.timer = setInterval(() => this.samples.push(this.open), 100);
  }

  /** Mean and largest open count over the samples. */
  stop(): { mean: number; max: number } {
    clearInterval(this.timer);
    const total = this.samples.reduce((sum, value) => sum + value, 0);
    return { mean: this.samples.length === 0 ? 0 : total / this.samples.length, max: Math.max(0, ...this.samples) };
  }
}
