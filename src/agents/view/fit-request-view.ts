import type { Logger } from "../../log/logger.js";
import type { ModelRequest } from "../../providers/model-provider.js";
import { estimateTextTokens, estimateToolsTokens, messageOverheadTokens } from "./estimate-tokens.js";
import { maskToolHistory } from "./mask-tool-history.js";
import { truncateToBudget } from "./truncate-to-budget.js";
import type { ViewCut, ViewTarget } from "./view-cut.js";

export type { ViewCut, ViewTarget } from "./view-cut.js";

/**
 * The request view made fit for one provider and model, built fresh per call; the input
 * request (and so the stored history it came from) is never changed.
 *
 * 1. Masking: tool calls and results the target cannot take as they are (made under another
 *    provider type, or no tools offered, or half a pair) become plain text; provider fields
 *    made by another provider or model are left out (see `maskToolHistory`).
 * 2. Truncation to `budgetTokens - reserveOutputTokens`, less the system prompt and tool
 *    definitions (always kept): oldest material first, the current step last, a call never
 *    without its result (see `truncateToBudget`). Tokens are estimated as UTF-8 bytes / 4.
 *
 * Every change is returned as a cut, and logged when a logger is given.
 */
export function fitRequestView(
  request: ModelRequest,
  target: ViewTarget,
  logger?: Logger,
): { request: ModelRequest; cuts: ViewCut[] } {
  const resultIndexes = new Set<number>();
  request.messages.forEach((message, index) => {
    if (message.role === "tool") resultIndexes.add(index);
  });
  const masked = maskToolHistory(request.messages, target, request.tools.length > 0);
  const fixedTokens = messageOverheadTokens + estimateTextTokens(request.system) + estimateToolsTokens(request.tools);
  const available = target.budgetTokens - target.reserveOutputTokens - fixedTokens;
  const truncated = truncateToBudget(masked.messages, resultIndexes, Math.max(0, available));
  const cuts = [...masked.cuts, ...truncated.cuts];
  if (logger && cuts.length > 0) {
    logger.info(
      {
        provider: target.provider,
        model: target.model,
        budgetTokens: target.budgetTokens,
        cuts: cuts.map((cut) => ({
          action: cut.action,
          messages: cut.messages.length,
          reason: cut.reason,
          tokensBefore: cut.tokensBefore,
          tokensAfter: cut.tokensAfter,
        })),
      },
      "request view cut to fit the model",
    );
  }
  return { request: { ...request, messages: truncated.messages }, cuts };
}
