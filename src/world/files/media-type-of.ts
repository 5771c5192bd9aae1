/** The media types the world tells apart, read from a file's first bytes (never from its name). */
export type SniffedMediaType =
  | "image/png"
  | "image/jpeg"
  | "image/gif"
  | "image/webp"
  | "application/pdf"
  | "text/plain; charset=utf-8"
  | "application/octet-stream";

/** Images a model may take as image input. */
export const imageMediaTypes: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export const textMediaType = "text/plain; charset=utf-8";

function startsWith(bytes: Uint8Array, prefix: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + prefix.length) return false;
  return prefix.every((value, index) => bytes[offset + index] === value);
}

const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));

/**
 * The type of a file from its magic numbers (PNG, JPEG, GIF, WebP, PDF); else UTF-8 text when
 * the bytes decode as UTF-8 without control characters other than tab, newline, carriage return
 * and form feed; else `application/octet-stream`.
 */
export function mediaTypeOf(bytes: Uint8Array): SniffedMediaType {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  if (startsWith(bytes, ascii("%PDF-"))) return "application/pdf";
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
