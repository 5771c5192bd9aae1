/** The model a request view is fitted for. */
export interface ViewTarget {
  /** The provider's config name (`openai`, `ollama`, …), as stored in a message's origin. */
  provider: string;
  model: string;
  /** Its wire protocol: `openai`, `anthropic` or `google`. */
  providerType: string;
  /** The model's context window in tokens (agent `contextBudget`, else the model's known limit). */
  budgetTokens: number;
  /** Kept free for the answer (the request's max output tokens). */
  reserveOutputTokens: number;
  /**
   * The type of every configured provider by name, to tell the type of a message's origin.
   * Without it, an origin named `openai`/`anthropic`/`google` has that type and any other
   * origin is compared by name.
   */
  providerTypes?: Record<string, string>;
}

/** One thing the view changed compared with the stored history, and why. */
export interface ViewCut {
  /**
   * `masked`: tool calls/results turned into plain text; `shortened`: a long text cut in the
   * middle; `dropped`: whole messages left out (oldest first); `over-budget`: the view still
   * exceeds the budget after every cut allowed (the provider may refuse it).
   */
  action: "masked" | "shortened" | "dropped" | "over-budget";
  /** Indexes into the input request's `messages` (empty for `over-budget`). */
  messages: number[];
  reason: string;
  /** Estimated tokens of those messages before and after (whole view for `over-budget`). */
  tokensBefore: number;
  tokensAfter: number;
}
