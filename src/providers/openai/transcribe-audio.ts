import type { Transcriber, TranscriptionUsage } from "../../world/files/transcripts.js";
import { mapOpenAIError } from "./map-error.js";

export interface OpenAITranscriberOptions {
  /** The provider's config name (for errors). */
  name: string;
  apiKey: string | undefined;
  /** Ends in `/v1`, as for chat (`providers.<name>.baseUrl`). */
  baseUrl: string;
  /** `files.transcribeModel` (default `whisper-1`). */
  model: string;
  timeoutMs: number;
}

/**
 * `files.transcribe` on an OpenAI-compatible provider: the SDK's `audio.transcriptions.create`
 * (multipart `file` and `model` to `<baseUrl>/audio/transcriptions`), the text of its JSON
 * answer. The SDK is loaded by the first call, as for the chat providers.
 */
export function createOpenAITranscriber(options: OpenAITranscriberOptions): Transcriber {
  let client: import("openai").OpenAI | undefined;
  return {
    async transcribe(file, signal) {
      const { OpenAI, toFile } = await import("openai");
      client ??= new OpenAI({
        apiKey: options.apiKey ?? "",
        baseURL: options.baseUrl,
        maxRetries: 1,
        timeout: options.timeoutMs,
        logLevel: "off",
      });
      try {
        const upload = await toFile(file.bytes, file.name, { type: file.mediaType });
        const result = await client.audio.transcriptions.create(
          { file: upload, model: options.model },
          signal === undefined ? {} : { signal },
        );
        return { text: result.text, ...usageOf(result) };
      } catch (error) {
        throw mapOpenAIError(error, options.name, signal);
      }
    },
  };
}

/** The usage a transcription answer reports (`usage.type` tokens or duration), if any. */
function usageOf(result: object): { usage?: TranscriptionUsage } {
  const usage = (result as { usage?: unknown }).usage;
  if (usage === null || typeof usage !== "object") return {};
  const fields = usage as Record<string, unknown>;
  if (fields.type === "tokens" && typeof fields.input_tokens === "number") {
    const outputTokens = typeof fields.output_tokens === "number" ? fields.output_tokens : 0;
    return { usage: { kind: "tokens", inputTokens: fields.input_tokens, outputTokens } };
  }
  if (fields.type === "duration" && typeof fields.seconds === "number") {
    return { usage: { kind: "seconds", seconds: fields.seconds } };
  }
  return {};
}
