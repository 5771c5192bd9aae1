import { type Config, providerConfigSchema } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import { type ProviderEnvironment, resolveEndpoint } from "../providers/create-provider.js";
import type { BudgetCharge, BudgetStore } from "../world/stores/budget-store.js";
import type { FilesOrigin, InboundFiles } from "../world/files/inbound-files.js";
import { audioMediaTypes } from "../world/files/media-type-of.js";
import type { Transcriber } from "../world/files/transcripts.js";
import { budgetNotice } from "../world/limits/day-budget.js";
import { reserveBudget, settleBudget } from "../world/limits/reserve-budget.js";
import { utcDay } from "../world/limits/utc-day.js";
import type { MessageFile } from "../world/records.js";
import type { WorldSettings } from "../world/world-settings.js";

/** The agent name a transcription is charged under (in `usage` and the buckets), beside its world, chat and sender. */
export const transcriptionUsageAgent = "transcription";

/** Where transcriptions are reserved and charged, and the clock of their day. */
export interface TranscriptionAccounting {
  store: Pick<BudgetStore, "chargeBudget" | "readBuckets">;
  clock: () => Date;
  /** `files.transcribeModel`: its price per minute of audio. */
  model: string;
}

/**
 * Inbound files with voice and audio transcribed (`files.transcribe`): every collected file
 * that has bytes and is audio by its bytes gets its `transcript`, which ingress folds into the
 * message's text. Each transcription is reserved against every cap of `limits` that applies to
 * the world, the message's chat and its sender (as a model call is, docs/budgets.md) before it
 * is sent (an estimate from the audio's duration), and settled to what the provider reports;
 * past a cap the file is not transcribed and the chat's notice says so.
 * A transcription that fails is logged and leaves the file as it is (named to the model like
 * any other file; its estimate stays charged); the message goes on.
 */
export function withTranscription(
  files: InboundFiles,
  transcriber: Transcriber,
  logger: Logger,
  accounting: TranscriptionAccounting,
): InboundFiles {
  const transcribed = async (
    file: MessageFile,
    world: Pick<WorldSettings, "name" | "limits">,
    origin: FilesOrigin,
  ): Promise<MessageFile> => {
    if (file.bytes === undefined || !audioMediaTypes.has(file.mediaType)) return file;
    const now = accounting.clock();
    const seconds = audioSeconds(file.bytes, file.mediaType);
    const estimate = transcriptionCharge(world.name, origin, now, accounting.model, seconds, {
      inputTokens: Math.ceil(seconds * audioTokensPerSecond),
      outputTokens: 0,
    });
    const reserved = await reserveBudget(accounting.store, world.limits, estimate, now);
    if (!("charge" in reserved)) {
      logger.warn(
        { file: file.name, limit: reserved.limit },
        "budget reached; a voice or audio file is not transcribed",
      );
      return { ...file, untranscribed: budgetNotice(reserved, now) };
    }
    let result: Awaited<ReturnType<Transcriber["transcribe"]>>;
    try {
      result = await transcriber.transcribe({ name: file.name, mediaType: file.mediaType, bytes: file.bytes });
    } catch (error) {
      logger.warn({ err: error, file: file.name }, "a voice or audio file could not be transcribed");
      return file;
    }
    const usage = result.usage;
    const settledSeconds = usage?.kind === "seconds" ? usage.seconds : seconds;
    const tokens =
      usage?.kind === "tokens"
        ? { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }
        : { inputTokens: estimate.inputTokens, outputTokens: Math.ceil(result.text.length / 4) };
    const settled = transcriptionCharge(world.name, origin, now, accounting.model, settledSeconds, tokens);
    await settleBudget(accounting.store, reserved, {
      inputTokens: settled.inputTokens - estimate.inputTokens,
      outputTokens: settled.outputTokens - estimate.outputTokens,
      cachedInputTokens: 0,
      costUsd: settled.costUsd - estimate.costUsd,
      calls: 0,
      estimatedCalls: usage === undefined ? 0 : -1,
    }).catch((error: unknown) =>
      logger.error({ err: error }, "could not settle a transcription's usage; its estimate stays charged"),
    );
    return { ...file, transcript: result.text };
  };
  return {
    collect: async (attachments, world, origin) => {
      const collected = await files.collect(attachments, world, origin);
      const out: MessageFile[] = [];
      for (const file of collected) out.push(await transcribed(file, world, origin));
      return out;
    },
    place: (world, messageId, placed) => files.place(world, messageId, placed),
    placed: (world, messageId) => files.placed(world, messageId),
  };
}

/** Audio tokens a second of speech is estimated at (what token-billed transcription models count). */
const audioTokensPerSecond = 10;

/** USD per minute of audio by transcription model (OpenAI's list); unknown models as `whisper-1`. */
const pricePerMinute: readonly [string, number][] = [
  ["gpt-4o-mini-transcribe", 0.003],
  ["gpt-4o-transcribe", 0.006],
  ["whisper", 0.006],
];

/** One transcription as a charge of the world, the chat and the sender: one call, estimated until settled. */
function transcriptionCharge(
  world: string,
  origin: FilesOrigin,
  now: Date,
  model: string,
  seconds: number,
  tokens: { inputTokens: number; outputTokens: number },
): BudgetCharge {
  const perMinute = pricePerMinute.find(([prefix]) => model.toLowerCase().startsWith(prefix))?.[1] ?? 0.006;
  return {
    world,
    agent: transcriptionUsageAgent,
    chatKey: origin.chatKey,
    person: origin.person,
    day: utcDay(now),
    month: utcDay(now).slice(0, 7),
    ...tokens,
    cachedInputTokens: 0,
    costUsd: (seconds / 60) * perMinute,
    calls: 1,
    estimatedCalls: 1,
  };
}

/**
 * How long an audio file plays, in seconds: an Ogg stream's last granule position (Opus counts
 * at 48 kHz), a WAV's data size over its byte rate, else the size at 32 kbit/s (a voice note's
 * rate; higher-rate audio is then over-estimated, never under-charged by much).
 */
export function audioSeconds(bytes: Uint8Array, mediaType: string): number {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (mediaType === "audio/ogg") {
    const last = view.lastIndexOf("OggS");
    if (last >= 0 && last + 14 <= view.length) {
      const granule = Number(view.readBigUInt64LE(last + 6));
      if (granule > 0 && granule < 2 ** 53) return Math.max(1, granule / 48_000);
    }
  }
  if (mediaType === "audio/wav" && view.length >= 44 && view.toString("latin1", 8, 12) === "WAVE") {
    const byteRate = view.readUInt32LE(28);
    if (byteRate > 0) return Math.max(1, (view.length - 44) / byteRate);
  }
  return Math.max(1, view.length / 4000);
}

/** The transcriber `files.transcribe` names, or undefined when it names none. */
export function transcriberFrom(
  config: Pick<Config, "files" | "providers">,
  env: ProviderEnvironment = process.env,
): Transcriber | undefined {
  const name = config.files.transcribe;
  if (name === undefined) return undefined;
  const provider = config.providers[name] ?? providerConfigSchema.parse({});
  const endpoint = resolveEndpoint(name, provider, env);
  const options = {
    name,
    apiKey: endpoint.apiKey,
    baseUrl: endpoint.baseUrl,
    model: config.files.transcribeModel,
    timeoutMs: provider.timeout,
  };
  // Loaded by the first transcription: the transcriber's module imports the OpenAI SDK (its
  // error classes), megabytes of memory a process that transcribes nothing would keep
  // (docs/performance.md, "Idle memory").
  let transcriber: Promise<Transcriber> | undefined;
  return {
    async transcribe(file, signal) {
      transcriber ??= import("../providers/openai/transcribe-audio.js").then(
        (module) => module.createOpenAITranscriber(options),
        (error: unknown) => {
          // Not kept: the next transcription tries the import again.
          transcriber = undefined;
          throw error;
        },
      );
      return (await transcriber).transcribe(file, signal);
    },
  };
}
