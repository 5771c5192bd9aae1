import pino from "pino";
import { describe, expect, it } from "vitest";
import { configSchema } from "../config/schema.js";
import { buildParts } from "./build-parts.js";

describe("buildParts", () => {
  it("takes an agent's budget from the model's limits unless the agent sets its own", async () => {
    const config = configSchema.parse({
      agents: [
        { name: "alice", provider: "openai", model: "gpt-4o" },
        { name: "olly", provider: "ollama", model: "my-model", contextBudget: 8_192, maxOutputTokens: 512 },
      ],
      worlds: [{ name: "team", agents: ["alice", "olly"] }],
      tools: { shell: { enabled: false } },
    });
    const parts = await buildParts(config, pino({ level: "silent" }), { providers: new Map() });
    try {
      const [alice, olly] = config.agents;
      if (alice === undefined || olly === undefined) throw new Error("the config has both agents");
      expect(parts.modelLimits(alice)).toEqual({ budgetTokens: 128_000, reserveOutputTokens: 16_384 });
      expect(parts.modelLimits(olly)).toEqual({ budgetTokens: 8_192, reserveOutputTokens: 512 });
    } finally {
      for (const closeable of parts.closeables ?? []) await closeable.close();
    }
  });
});
