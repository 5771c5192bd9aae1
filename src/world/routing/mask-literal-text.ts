/**
 * The character that stands in for masked text. It is neither whitespace nor a name
 * character, so masked text can neither start a mention nor make a later one look like the
 * first word of its line.
 */
export const maskCharacter = "\uFFFC";

const urlPattern = /\b[a-z][a-z0-9+.-]*:\/\/[^\s<>"]+|\bwww\.[^\s<>"]+/gi;

/**
 * Returns `text` with every part in which an `@` is literal, not a mention, replaced by
 * {@link maskCharacter}: fenced code blocks, inline code spans and URLs. Newlines are kept
 * and the length is unchanged, so offsets into the result are offsets into `text`.
 *
 * Code follows Markdown as chat platforms use it, a little more leniently than CommonMark:
 * - a run of three or more backticks opens a block that ends at the next run at least as
 *   long, wherever it stands (Slack's one-line ```code``` and code that ends its last line
 *   with the fence both work); unclosed, it runs to the end of the text when it began a
 *   line and is literal otherwise;
 * - a `~~~` fence opens at the start of a line and closes at a line holding only tildes;
 * - a run of one or two backticks ends at the next run of exactly that length; unmatched,
 *   the backticks are literal.
 */
export function maskLiteralText(text: string): string {
  const masked = maskCode(text);
  return masked.replace(urlPattern, (url) => maskCharacter.repeat(url.length));
}

function maskCode(text: string): string {
  const ranges: Array<[start: number, end: number]> = [];
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    if (character === "~" && startsLine(text, index)) {
      const end = tildeFenceEnd(text, index);
      if (end !== undefined) {
        ranges.push([index, end]);
        index = end;
        continue;
      }
    }
    if (character === "`") {
      const length = runLength(text, index, "`");
      const end = backtickSpanEnd(text, index, length);
      if (end !== undefined) {
        ranges.push([index, end]);
        index = end;
      } else {
        index += length;
      }
      continue;
    }
    index += 1;
  }
  return applyMask(text, ranges);
}

function backtickSpanEnd(text: string, start: number, length: number): number | undefined {
  let index = start + length;
  while (index < text.length) {
    const next = text.indexOf("`", index);
    if (next === -1) break;
    const closing = runLength(text, next, "`");
    if (length >= 3 ? closing >= length : closing === length) return next + closing;
    index = next + closing;
  }
  return length >= 3 && startsLine(text, start) ? text.length : undefined;
}

/** The end of a tilde fence opened at `start`, or undefined when no fence opens there. */
function tildeFenceEnd(text: string, start: number): number | undefined {
  const length = runLength(text, start, "~");
  if (length < 3) return undefined;
  let lineStart = text.indexOf("\n", start);
  while (lineStart !== -1) {
    lineStart += 1;
    const lineEnd = text.indexOf("\n", lineStart);
    const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd).trim();
    if (line.length >= length && /^~+$/.test(line)) return lineEnd === -1 ? text.length : lineEnd;
    lineStart = lineEnd;
  }
  return text.length;
}

/** True when only spaces or tabs stand between the previous newline (or the text start) and `index`. */
function startsLine(text: string, index: number): boolean {
  for (let before = index - 1; before >= 0; before -= 1) {
    const character = text[before];
    if (character === "\n") return true;
    if (character !== " " && character !== "\t") return false;
  }
  return true;
}

function runLength(text: string, start: number, character: string): number {
  let end = start;
  while (text[end] === character) end += 1;
  return end - start;
}

function applyMask(text: string, ranges: Array<[start: number, end: number]>): string {
  if (ranges.length === 0) return text;
  let result = "";
  let position = 0;
  for (const [start, end] of ranges) {
    result += text.slice(position, start);
    result += text.slice(start, end).replace(/[^\n]/g, maskCharacter);
    position = end;
  }
  return result + text.slice(position);
}
