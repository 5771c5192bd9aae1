/** The media types the world tells apart, read from a file's first bytes (never from its name). */
export type SniffedMediaType =
  | "image/png"
  | "image/jpeg"
  | "image/gif"
  | "image/webp"
  | "application/pdf"
  | "audio/ogg"
  | "audio/mpeg"
  | "audio/wav"
  | "audio/flac"
  | "audio/mp4"
  | "audio/webm"
  | "text/plain; charset=utf-8"
  | "application/octet-stream";

/** Images a model may take as image input. */
export const imageMediaTypes: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** Voice and audio that a transcription endpoint takes (Telegram voice notes are Ogg Opus). */
export const audioMediaTypes: ReadonlySet<string> = new Set([
  "audio/ogg",
  "audio/mpeg",
  "audio/wav",
  "audio/flac",
  "audio/mp4",
  "audio/webm",
]);

export const textMediaType = "text/plain; charset=utf-8";

function startsWith(bytes: Uint8Array, prefix: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + prefix.length) return false;
  return prefix.every((value, index) => bytes[offset + index] === value);
}

const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));

/**
 * The type of a file from its magic numbers (PNG, JPEG, GIF, WebP, PDF; audio: Ogg, MP3, WAV,
 * FLAC, M4A, WebM); else UTF-8 text when
 * the bytes decode as UTF-8 without control characters other than tab, newline, carriage return
 * and form feed; else `application/octet-stream`.
 */
export function mediaTypeOf(bytes: Uint8Array): SniffedMediaType {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  if (startsWith(bytes, ascii("%PDF-"))) return "application/pdf";
  const audio = audioTypeOf(bytes);
  if (audio !== undefined) return audio;
  return looksLikeText(bytes) ? textMediaType : "application/octet-stream";
}

function looksLikeText(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
  return !/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text);
}

function audioTypeOf(bytes: Uint8Array): SniffedMediaType | undefined {
  if (startsWith(bytes, ascii("OggS"))) return "audio/ogg";
  if (startsWith(bytes, ascii("ID3"))) return "audio/mpeg";
  // An MP3 frame without a tag: 11 sync bits, MPEG version and layer III.
  if (bytes.length >= 2 && bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe6) === 0xe2) return "audio/mpeg";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WAVE"), 8)) return "audio/wav";
  if (startsWith(bytes, ascii("fLaC"))) return "audio/flac";
  if (startsWith(bytes, ascii("ftypM4A"), 4)) return "audio/mp4";
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) return "audio/webm";
  return undefined;
}
