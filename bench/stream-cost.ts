/**
 * `npx tsx bench/stream-cost.ts [--streams N] [--layer http|fetch|chunks|mapped|openai|sdk|provider|slots|answer]`:
 * the CPU a streamed answer costs this process per token, layer by layer, with the fake model in
 * a child process (its CPU not counted). N answers of 400 tokens stream at once, a token every
 * 20 ms each (as `--model-latency real`). `http`: `node:http` alone; `fetch`: the global `fetch`
 * alone; `chunks`: `fetch` read by `sseChunks`; `mapped`: and `mapOpenAIStream`; `openai`: the
 * OpenAI provider alone (the SDK over `nodeHttpFetch`); `sdk`: the OpenAI SDK's stream alone; `provider`: the
 * provider as the service builds it (retries, telemetry, chunk mapping); `slots`: read through
 * the step slots as a step reads it; `answer`: and each token handed to a Telegram edit stream
 * (drafts, 1 s interval, the real Markdown-to-HTML render; no HTTP to Telegram).
 * `--provider anthropic|google` (with `--layer provider`): that provider against its own fake.
 */
import { spawn } from "node:child_process";
import { Agent, request as httpRequest } from "node:http";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import OpenAI from "openai";
import { renderText, type TelegramPart } from "../channels/telegram/render.js";
import { createLogger } from "../src/log/logger.js";
import { createProvider } from "../src/providers/create-provider.js";
import type { ModelProvider, ModelRequest } from "../src/providers/model-provider.js";
import { traceProvider } from "../src/telemetry/traced-provider.js";
import { EditStream } from "../src/world/delivery/edit-stream.js";
import { PaceTable } from "../src/world/delivery/pace-table.js";
import type { ChannelPrimitives } from "../src/world/delivery/primitives.js";
import { StepSlots, slotFreeStream } from "../src/world/queue/step-slots.js";
import { sseChunks } from "../src/providers/openai/sse-chunks.js";
import { mapOpenAIStream } from "../src/providers/openai/map-stream.js";
import { OpenAIProvider } from "../src/providers/openai/openai-provider.js";
import { realModel } from "./model-latency.js";
import { repositoryRoot } from "./service-process.js";

const { values } = parseArgs({
  options: {
    streams: { type: "string" },
    layer: { type: "string" },
    rounds: { type: "string" },
    provider: { type: "string" },
  },
});
const streams = Number(values.streams ?? "200");
const rounds = Number(values.rounds ?? "2");
const layer = values.layer ?? "answer";
if (!["http", "fetch", "chunks", "mapped", "openai", "sdk", "provider", "slots", "answer"].includes(layer))
  throw new Error("--layer is http, fetch, chunks, mapped, openai, sdk, provider, slots or answer");
const providerType = values.provider ?? "openai";
if (!["openai", "anthropic", "google"].includes(providerType))
  throw new Error("--provider is openai, anthropic or google");
if (providerType !== "openai" && layer !== "provider") throw new Error("--provider needs --layer provider");

const child = spawn(process.execPath, ["--import", "tsx", "bench/stream-cost-model.ts", "20", providerType], {
  cwd: repositoryRoot,
  stdio: ["ignore", "pipe", "inherit"],
});
const baseUrl = await new Promise<string>((resolve) =>
  child.stdout.setEncoding("utf8").once("data", (line: string) => resolve(line.trim())),
);

const logger = createLogger({ level: "warn" });
const provider: ModelProvider = traceProvider(
  createProvider(providerType, { apiKey: "sk-bench", baseUrl, timeout: 600_000, maxRetries: 3 } as never, logger),
  providerType,
);
const openaiProvider = new OpenAIProvider({ name: "openai", apiKey: "sk-bench", baseUrl });
const sdk = new OpenAI({ apiKey: "sk-bench", baseURL: baseUrl, maxRetries: 0, logLevel: "off" });
const request: ModelRequest = {
  model: "gpt-4.1",
  system: "You are a benchmark.",
  messages: [{ role: "user", text: "m1x1 hello" }],
  tools: [],
};
const slots = new StepSlots(32);
const keepAlive = new Agent({ keepAlive: true });
const pace = new PaceTable();

function telegramChannel(): ChannelPrimitives<TelegramPart> {
  return {
    renderParts: async (_chat, message) => renderText(message.text, message.author.name),
    samePart: (left, right) => left.html === right.html,
    sendPart: async () => "1",
    editPart: async () => "edited",
    deletePart: async () => undefined,
    sendCard: async () => ({ id: "1" }),
    editCard: async () => "edited",
    renderOutcome: async () => ({ html: "", plain: "" }),
    streamMode: () => ({ kind: "none" }) as never,
  };
}

let tokens = 0;
async function oneAnswer(index: number): Promise<void> {
  if (layer === "http") {
    const body = JSON.stringify({
      model: "gpt-4.1",
      stream: true,
      messages: [{ role: "user", content: "m1x1 hello" }],
    });
    await new Promise<void>((resolve, reject) => {
      const call = httpRequest(
        `${baseUrl}/chat/completions`,
        {
          method: "POST",
          agent: keepAlive,
          headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
        },
        (response) => {
          response.setEncoding("utf8");
          response.on("data", (text: string) => {
            for (let at = text.indexOf("\n\n"); at >= 0; at = text.indexOf("\n\n", at + 2)) tokens++;
          });
          response.on("end", resolve);
          response.on("error", reject);
        },
      );
      call.on("error", reject);
      call.end(body);
    });
    return;
  }
  if (layer === "fetch") {
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
      body: JSON.stringify({ model: "gpt-4.1", stream: true, messages: [{ role: "user", content: "m1x1 hello" }] }),
    });
    const decoder = new TextDecoder();
    for await (const bytes of response.body ?? []) {
      const text = decoder.decode(bytes as Uint8Array, { stream: true });
      for (let at = text.indexOf("\n\n"); at >= 0; at = text.indexOf("\n\n", at + 2)) tokens++;
    }
    return;
  }
  if (layer === "chunks" || layer === "mapped") {
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
      body: JSON.stringify({ model: "gpt-4.1", stream: true, messages: [{ role: "user", content: "m1x1 hello" }] }),
    });
    if (layer === "chunks") {
      for await (const chunk of sseChunks(response, undefined)) if (chunk) tokens++;
    } else {
      for await (const part of mapOpenAIStream(sseChunks(response, undefined), "openai", undefined, () => "x"))
        if (part.type === "text-delta") tokens++;
    }
    return;
  }
  if (layer === "openai") {
    for await (const part of openaiProvider.stream(request)) if (part.type === "text-delta") tokens++;
    return;
  }
  if (layer === "sdk") {
    const chunks = await sdk.chat.completions.create({
      model: "gpt-4.1",
      stream: true,
      messages: [{ role: "user", content: "m1x1 hello" }],
    });
    for await (const chunk of chunks) if (chunk.choices[0]?.delta.content) tokens++;
    return;
  }
  if (layer === "provider") {
    for await (const part of provider.stream(request)) if (part.type === "text-delta") tokens++;
    return;
  }
  await slots.run(async () => {
    const chat = { platform: "telegram", chatId: String(index) } as never;
    const author = { kind: "agent", id: "alice", name: "alice" } as const;
    const stream =
      layer === "answer"
        ? new EditStream<TelegramPart>({
            channel: telegramChannel(),
            chat,
            author,
            mode: { kind: "edit", intervalMs: 1_000, paceKey: `c${index}`, draft: { show: async () => undefined } },
            pace,
            logger,
          })
        : undefined;
    let streamed = "";
    for await (const part of slotFreeStream(provider.stream(request), (part) => part.type === "restart")) {
      if (part.type !== "text-delta") continue;
      tokens++;
      streamed += part.text;
      stream?.update(streamed);
    }
    await stream?.finish(streamed);
  });
}

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ["gc"] });

try {
  for (let round = 0; round < rounds; round++) {
    tokens = 0;
    gcMs = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(Array.from({ length: streams }, (_, index) => oneAnswer(index)));
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1_000;
    process.stdout.write(
      `${layer}${layer === "provider" ? ` (${providerType})` : ""}, ${streams} answers at once: ${tokens} parts read, ${Math.round(performance.now() - started)} ms, CPU ${Math.round(cpuMs)} ms = ${((cpuMs * 1_000) / (streams * realModel.answerTokens)).toFixed(1)} µs a token (${realModel.answerTokens} an answer), ${(cpuMs / streams).toFixed(1)} ms an answer (GC ${Math.round(gcMs)} ms)${round === 0 ? " (warm-up)" : ""}\n`,
    );
  }
} finally {
  child.kill();
}
