/**
 * The model side of `bench/stream-cost.ts`, in a process of its own so that its CPU is not
 * counted: the OpenAI fake answering every request with a real-speed answer (400 tokens).
 * Prints its base URL on stdout, then serves until killed.
 */
import { startOpenAIFake } from "../tests/fakes/openai-server.js";
import { benchReply } from "./model-latency.js";

const frameDelayMs = Number(process.argv[2] ?? "20");
const model = await startOpenAIFake({
  record: false,
  respond: () => ({ ...benchReply("m1x1", "real"), firstFrameDelayMs: 0, frameDelayMs }),
});
process.stdout.write(`${model.baseUrl}\n`);
