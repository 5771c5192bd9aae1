import { describe, expect, it } from "vitest";
import { defaultModelLimits, modelFamilyName, modelLimits } from "./model-limits.js";

describe("modelLimits", () => {
  it("knows the big families", () => {
    expect(modelLimits("gpt-4.1")).toEqual({ contextTokens: 1_047_576, maxOutputTokens: 32_768 });
    expect(modelLimits("gpt-4o-mini").contextTokens).toBe(128_000);
    expect(modelLimits("claude-opus-4-6").contextTokens).toBe(200_000);
    expect(modelLimits("gemini-2.5-flash").contextTokens).toBe(1_048_576);
  });

  it("reads through router prefixes and Ollama tags", () => {
    expect(modelFamilyName("openai/GPT-4o")).toBe("gpt-4o");
    expect(modelFamilyName("llama3.1:8b")).toBe("llama3.1");
    expect(modelLimits("anthropic/claude-3-5-sonnet").maxOutputTokens).toBe(8_192);
    expect(modelLimits("llama3.1:8b").contextTokens).toBe(128_000);
  });

  it("gives an unknown model sensible defaults that agent config overrides", () => {
    expect(modelLimits("my-finetune-v2")).toEqual(defaultModelLimits);
    expect(modelLimits("my-finetune-v2", { contextBudget: 8_000, maxOutputTokens: 1_000 })).toEqual({
      contextTokens: 8_000,
      maxOutputTokens: 1_000,
    });
    // A small budget keeps room for input: the output limit is at most half of it.
    expect(modelLimits("gpt-4.1", { contextBudget: 4_000 }).maxOutputTokens).toBe(2_000);
  });
});
