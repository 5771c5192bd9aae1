import { fenceOpenAt } from "../kit/markdown-fences.js";

/**
 * Split Markdown into pieces of at most `limit` characters, preferring paragraph breaks, then
 * line breaks, then spaces; a hard cut only when a line has no space. Each piece is rendered
 * on its own, so no HTML tag is ever cut. The separator stays at the end of the piece before
 * it: joined, the pieces are the original text. The one exception is a fenced code block cut
 * in two: the first piece closes the fence and the next reopens it (markers are invisible).
 */
export function splitMarkdown(text: string, limit: number): string[] {
  if (limit < 1) throw new RangeError("split limit must be positive");
  const pieces: string[] = [];
  let position = 0;
  let reopen = "";
  while (position < text.length) {
    const remaining = text.length - position;
    if (remaining <= limit) {
      pieces.push(reopen + text.slice(position));
      break;
    }
    const cut = position + cutPoint(text.slice(position, position + limit + 1), limit);
    const openFence = fenceOpenAt(text, cut);
    let piece = reopen + text.slice(position, cut);
    if (openFence) piece += `${piece.endsWith("\n") ? "" : "\n"}${openFence.marker}`;
    pieces.push(piece);
    reopen = openFence ? `${openFence.line}\n` : "";
    position = cut;
  }
  return pieces;
}

/** Where to cut `window` (which holds up to `limit + 1` characters) so the head is ≤ limit. */
function cutPoint(window: string, limit: number): number {
  const head = window.slice(0, limit);
  const half = Math.floor(limit / 2);
  const candidates = [
    head.lastIndexOf("\n\n") >= 0 ? head.lastIndexOf("\n\n") + 2 : -1,
    // A line break right after the window's end still ends a line inside it.
    window.lastIndexOf("\n", limit - 1) >= 0 ? window.lastIndexOf("\n", limit - 1) + 1 : -1,
    lastSpace(head),
  ];
  for (const candidate of candidates) if (candidate >= half) return candidate;
  for (const candidate of candidates) if (candidate > 0) return candidate;
  // No break anywhere: a hard cut, never between the halves of a surrogate pair.
  const code = head.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff && limit > 1 ? limit - 1 : limit;
}

function lastSpace(head: string): number {
  for (let index = head.length - 1; index > 0; index -= 1) {
    if (head[index] === " " || head[index] === "\t") return index + 1;
  }
  return -1;
}
