import type { MessageFile } from "../records.js";

/** What a transcription used, as the provider reported it (newer models report tokens, some the seconds). */
export type TranscriptionUsage =
  | { kind: "tokens"; inputTokens: number; outputTokens: number }
  | { kind: "seconds"; seconds: number };

/**
 * Turns voice and audio into text (`files.transcribe`: an OpenAI-compatible
 * `/audio/transcriptions`). Implemented in src/providers; absent, audio is named as a file.
 */
export interface Transcriber {
  /** The words of one file and what the provider said it used; throws when the endpoint fails. */
  transcribe(
    file: { name: string; mediaType: string; bytes: Uint8Array },
    signal?: AbortSignal,
  ): Promise<{ text: string; usage?: TranscriptionUsage }>;
}

/** The line saying which audio files were not transcribed and why (the budget's notice). */
export function untranscribedNotice(files: readonly MessageFile[]): string | undefined {
  const skipped = files.filter((file) => file.untranscribed !== undefined);
  if (skipped.length === 0) return undefined;
  const names = skipped.map((file) => file.name).join(", ");
  return `Not transcribed: ${names}. ${skipped[0]?.untranscribed ?? ""}`.trim();
}

/**
 * A message's text with each of its files' transcripts after it, each led by a line naming
 * the file (`[voice note voice.ogg, transcribed]`, `[audio clip.mp3, transcribed]`), then the words on lines of their own. So a
 * transcript is the message's text for routing too (a spoken "@bob …" starts a line, and
 * addresses bob) and for every model that reads the message.
 */
export function withTranscripts(
  text: string,
  files: readonly MessageFile[],
  maxLength = Number.POSITIVE_INFINITY,
): string {
  let room = maxLength - text.length;
  const parts: string[] = [];
  for (const file of files) {
    const words = file.transcript?.trim() ?? "";
    if (words === "") continue;
    const kind = file.mediaType === "audio/ogg" ? "voice note" : "audio";
    const head = `[${kind} ${file.name}, transcribed]`;
    // Within the message's text limit: a transcript that does not fit is cut, and says so.
    const whole = `${head}\n${words}`;
    if (whole.length + 1 <= room) {
      parts.push(whole);
      room -= whole.length + 1;
      continue;
    }
    const cutHead = (keep: number) =>
      `[${kind} ${file.name}, transcribed, cut to ${keep} of ${words.length} characters]`;
    const keep = Math.max(0, room - cutHead(words.length).length - 2);
    if (keep > 0) parts.push(`${cutHead(keep)}\n${words.slice(0, keep)}`);
    room = 0;
  }
  if (parts.length === 0) return text;
  return [text, ...parts].filter((part) => part.trim() !== "").join("\n");
}
