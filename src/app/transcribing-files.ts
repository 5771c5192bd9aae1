import { type Config, providerConfigSchema } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import { type ProviderEnvironment, resolveEndpoint } from "../providers/create-provider.js";
import type { InboundFiles } from "../world/files/inbound-files.js";
import { audioMediaTypes } from "../world/files/media-type-of.js";
import type { Transcriber } from "../world/files/transcripts.js";
import type { MessageFile } from "../world/records.js";

/**
 * Inbound files with voice and audio transcribed (`files.transcribe`): every collected file
 * that has bytes and is audio by its bytes gets its `transcript`, which ingress folds into the
 * message's text. A transcription that fails is logged and leaves the file as it is (named
 * to the model like any other file); the message goes on.
 */
export function withTranscription(files: InboundFiles, transcriber: Transcriber, logger: Logger): InboundFiles {
  const transcribed = async (file: MessageFile): Promise<MessageFile> => {
    if (file.bytes === undefined || !audioMediaTypes.has(file.mediaType)) return file;
    try {
      const transcript = await transcriber.transcribe({
        name: file.name,
        mediaType: file.mediaType,
        bytes: file.bytes,
      });
      return { ...file, transcript };
    } catch (error) {
      logger.warn({ err: error, file: file.name }, "a voice or audio file could not be transcribed");
      return file;
    }
  };
  return {
    collect: async (attachments) => {
      const collected = await files.collect(attachments);
      const out: MessageFile[] = [];
      for (const file of collected) out.push(await transcribed(file));
      return out;
    },
    place: (world, messageId, placed) => files.place(world, messageId, placed),
    placed: (world, messageId) => files.placed(world, messageId),
  };
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
