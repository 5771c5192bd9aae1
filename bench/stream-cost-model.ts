/**
 * The model side of `bench/stream-cost.ts`, in a process of its own so that its CPU is not
 * counted: the OpenAI fake (or `anthropic`'s, `google`'s: the second argument) answering every
 * request with a real-speed answer (400 tokens).
 * Prints its base URL on stdout, then serves until killed.
 */
import { startAnthropicFake } from "../tests/fakes/anthropic-server.js";
import { startGeminiFake } from "../tests/fakes/gemini-server.js";
import { startOpenAIFake } from "../tests/fakes/openai-server.js";
import { benchReply } from "./model-latency.js";

const frameDelayMs = Number(process.argv[2] ?? "20");
const start = { anthropic: startAnthropicFake, google: startGeminiFake }[process.argv[3] ?? ""] ?? startOpenAIFake;
const model = await start({
  record: false,
  respond: () => ({ ...benchReply("m1x1", "real"), firstFrameDelayMs: 0, frameDelayMs }),
});
process.stdout.write(`${model.baseUrl}\n`);
