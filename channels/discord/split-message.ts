import { closesFence, fenceOpenAt, type OpenFence } from "../kit/markdown-fences.js";

/** Discord's limit for a message's content. */
export const discordMessageLimit = 2000;

/**
 * Markdown as pieces of at most `limit` characters, cut at paragraph breaks, else line
 * breaks, else spaces (a hard cut only in a line with no space). A fenced code block that fits
 * in one piece is never cut: the cut moves before it. A block longer than a piece is cut at a
 * line, closed at the end of the piece and reopened (same language) at the start of the next.
 */
export function splitMessage(text: string, limit = discordMessageLimit): string[] {
  if (limit < 16) throw new RangeError("split limit must be at least 16");
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = cutPoint(rest, limit);
    let span = fenceOpenAt(rest, cut);
    if (span) {
      const blockEnd = fenceEnd(rest, span);
      if (span.start > 0 && blockEnd - span.start <= limit) {
        // The block fits in a piece of its own: cut before it.
        cut = span.start;
        span = undefined;
      } else if (blockEnd <= limit) {
        cut = blockEnd;
        span = undefined;
      } else {
        // Too long for any piece: cut inside, leaving room to close the fence.
        cut = cutPoint(rest, limit - span.marker.length - 1);
        span = fenceOpenAt(rest, cut);
      }
    }
    let piece = rest.slice(0, cut);
    if (span) piece = `${piece.replace(/\n$/, "")}\n${span.marker}`;
    if (piece.trim() !== "") pieces.push(piece.trimEnd());
    rest = rest.slice(cut).replace(/^\n+/, "");
    if (span) rest = `${span.line}\n${rest}`;
  }
  if (rest.trim() !== "" || pieces.length === 0) pieces.push(rest.trimEnd());
  return pieces;
}

/** Where to cut `text` so that the head holds at most `budget` characters. */
function cutPoint(text: string, budget: number): number {
  if (text.length <= budget) return text.length;
  const head = text.slice(0, budget);
  const half = Math.floor(budget / 2);
  const paragraph = head.lastIndexOf("\n\n");
  const line = text.lastIndexOf("\n", budget);
  const space = Math.max(head.lastIndexOf(" "), head.lastIndexOf("\t"));
  const candidates = [
    paragraph >= 0 ? paragraph + 1 : -1,
    line >= 0 && line <= budget ? line : -1,
    space > 0 ? space + 1 : -1,
  ];
  for (const candidate of candidates) if (candidate >= half) return candidate;
  for (const candidate of candidates) if (candidate > 0) return candidate;
  const code = head.charCodeAt(budget - 1);
  return code >= 0xd800 && code <= 0xdbff ? budget - 1 : budget;
}

/** Where the block opened at `span` ends (the end of its closing line), or the end of the text. */
function fenceEnd(text: string, span: OpenFence): number {
  const marker = span.marker;
  let lineStart = text.indexOf("\n", span.start);
  while (lineStart >= 0) {
    const next = text.indexOf("\n", lineStart + 1);
    const line = text.slice(lineStart + 1, next < 0 ? text.length : next);
    if (closesFence(line, marker)) return next < 0 ? text.length : next;
    lineStart = next;
  }
  return text.length;
}
