import { afterEach, describe, expect, it } from "vitest";
import type { FakeModelServer } from "../fakes/model-fake-server.js";
import { startOpenAIFake } from "../fakes/openai-server.js";
import { runJsonChild } from "../fakes/run-json-child.js";

let fake: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("the transcriber of files.transcribe", () => {
  // Idle memory (docs/performance.md): the service makes it at start; the OpenAI SDK it uses
  // is megabytes of heap for good, so it is loaded by the first transcription only.
  it("loads the OpenAI SDK at its first transcription, not when it is made", async () => {
    fake = await startOpenAIFake({ steps: [] });
    const [created, called] = await runJsonChild("tests/files/transcriber-load-child.ts", [fake.baseUrl]);
    expect(created).toEqual({ phase: "created", sdkModules: 0, made: true });
    expect(called?.text).toBe("transcript of voice.ogg");
    expect(called?.sdkModules).toBeGreaterThan(1);
  });
});
