import type { MessageFile } from "../records.js";

/**
 * Turns voice and audio into text (`files.transcribe`: an OpenAI-compatible
 * `/audio/transcriptions`). Implemented in src/providers; absent, audio is named as a file.
 */
export interface Transcriber {
  /** The words of one file; throws when the endpoint fails. */
  transcribe(file: { name: string; mediaType: string; bytes: Uint8Array }, signal?: AbortSignal): Promise<string>;
}

/**
 * A message's text with each of its files' transcripts after it, each led by a line naming
 * the file (`[voice note voice.ogg, transcribed]`, `[audio clip.mp3, transcribed]`), then the words on lines of their own. So a
 * transcript is the message's text for routing too (a spoken "@bob …" starts a line, and
 * addresses bob) and for every model that reads the message.
 */
export function withTranscripts(text: string, files: readonly MessageFile[]): string {
  const parts = files
    .filter((file) => file.transcript !== undefined && file.transcript.trim() !== "")
    .map(
      (file) =>
        `[${file.mediaType === "audio/ogg" ? "voice note" : "audio"} ${file.name}, transcribed]\n${file.transcript?.trim()}`,
    );
  if (parts.length === 0) return text;
  return [text, ...parts].filter((part) => part.trim() !== "").join("\n");
}
