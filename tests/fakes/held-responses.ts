import type { ServerResponse } from "node:http";

/**
 * A platform call the fake carries out but does not answer: what a service sees when it is
 * killed (or the network breaks) after the platform took a post and before the answer
 * arrived. `reached` resolves once the call was carried out; `release` then sends the answer
 * (late), `drop` closes the connection without one (the caller sees a network failure).
 */
export class HeldResponse {
  readonly reached: Promise<void>;
  private resolveReached: () => void = () => {};
  private response: ServerResponse | undefined;
  private answer: (() => void) | undefined;

  constructor() {
    this.reached = new Promise((resolve) => {
      this.resolveReached = resolve;
    });
  }

  /** The fake's answer is held here instead of being sent. */
  hold(response: ServerResponse, answer: () => void): void {
    this.response = response;
    this.answer = answer;
    this.resolveReached();
  }

  release(): void {
    this.answer?.();
    this.answer = undefined;
    this.response = undefined;
  }

  drop(): void {
    this.response?.socket?.destroy();
    this.answer = undefined;
    this.response = undefined;
  }
}

/** Calls to hold, by method and path, each once. */
export class HeldResponses {
  private readonly waiting: { method: string; pattern: RegExp; held: HeldResponse }[] = [];

  /** The next call matching `method` and `pattern` is carried out and left unanswered. */
  next(method: string, pattern: RegExp): HeldResponse {
    const held = new HeldResponse();
    this.waiting.push({ method, pattern, held });
    return held;
  }

  /** The held response for this call, if one is waiting for it (then it is used up). */
  take(method: string, path: string): HeldResponse | undefined {
    const index = this.waiting.findIndex((entry) => entry.method === method && entry.pattern.test(path));
    if (index < 0) return undefined;
    return this.waiting.splice(index, 1)[0]?.held;
  }
}
