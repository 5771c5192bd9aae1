import type { Price } from "../config/schema.js";
import type { Usage } from "../providers/model-provider.js";

/**
 * A small list of known prices (USD per million input and output tokens) for models an agent
 * names without `agents[].price`. Matched by the longest prefix of the model name; a model not
 * listed costs nothing here, so a world with `costPerDay` should give such agents a price.
 */
const knownPrices: readonly [prefix: string, price: Price][] = [
  ["gpt-4.1-nano", { input: 0.1, output: 0.4 }],
  ["gpt-4.1-mini", { input: 0.4, output: 1.6 }],
  ["gpt-4.1", { input: 2, output: 8 }],
  ["gpt-4o-mini", { input: 0.15, output: 0.6 }],
  ["gpt-4o", { input: 2.5, output: 10 }],
  ["o4-mini", { input: 1.1, output: 4.4 }],
  ["o3", { input: 2, output: 8 }],
  ["claude-opus-4", { input: 15, output: 75 }],
  ["claude-sonnet-4", { input: 3, output: 15 }],
  ["claude-3-5-haiku", { input: 0.8, output: 4 }],
  ["claude-haiku-4", { input: 1, output: 5 }],
  ["gemini-2.5-pro", { input: 1.25, output: 10 }],
  ["gemini-2.5-flash", { input: 0.3, output: 2.5 }],
];

/** The agent's price: its configured `price`, else the known list's, else none. */
export function priceOf(agent: { model: string; price?: Price | undefined }): Price | undefined {
  if (agent.price) return agent.price;
  const model = agent.model.toLowerCase();
  let best: [string, Price] | undefined;
  for (const [prefix, price] of knownPrices) {
    if (model.startsWith(prefix) && (best === undefined || prefix.length > best[0].length)) best = [prefix, price];
  }
  return best?.[1];
}

/** What one call cost in USD (0 without a price). */
export function costOf(usage: Usage, price: Price | undefined): number {
  if (!price) return 0;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}
