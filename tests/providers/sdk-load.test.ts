import { afterEach, describe, expect, it } from "vitest";
import type { FakeModelServer } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { runJsonChild } from "../fakes/run-json-child.js";

let fake: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("a provider's SDK", () => {
  // Idle memory (docs/performance.md): an SDK imported is megabytes of heap for good, so a
  // process that never calls a provider never loads its SDK.
  it("is loaded by the provider's first call, not when the provider is created", async () => {
    fake = await startOpenAIFake({ steps: [{ type: "reply", text: ["hello from the fake"] }] });
    const [created, called] = await runJsonChild("tests/providers/sdk-load-child.ts", [fake.baseUrl]);
    expect(created).toEqual({ phase: "created", sdkModules: 0 });
    expect(called?.phase).toBe("called");
    expect(called?.text).toBe("hello from the fake");
    expect(called?.sdkModules).toBeGreaterThan(1);
  });
});
