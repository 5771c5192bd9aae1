import { closesFence, fenceOpener } from "../kit/markdown-fences.js";

/**
 * The Markdown that models write, as Telegram HTML (parse_mode HTML). Supported: **bold**,
 * __bold__, *italic*, _italic_, ~~strike~~, `code`, fenced code blocks, [links](https://…),
 * `#` headings (bold) and `>` quotes. Everything else is text: `<`, `>` and `&` are escaped
 * wherever they appear, and a marker without its partner stays as it was written.
 * Every character of visible output comes from one character of input, so a rendered text is
 * never longer (in visible characters) than its source.
 */

/** Escape text for Telegram HTML. */
export function escapeHtml(text: string): string {
  // Most text has none of the three: one scan, no copies.
  if (!reserved.test(text)) return text;
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

const reserved = /[&<>]/;

/** Escape an attribute value (inside double quotes). */
function escapeAttribute(text: string): string {
  return escapeHtml(text).replaceAll('"', "&quot;");
}

const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const quote = /^ {0,3}> ?(.*)$/;

export function markdownToTelegramHtml(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let paragraph: string[] = [];
  const flushParagraph = (): void => {
    if (paragraph.length > 0) out.push(renderInline(paragraph.join("\n")));
    paragraph = [];
  };
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    const fence = fenceOpener(line);
    if (fence) {
      flushParagraph();
      const body: string[] = [];
      index += 1;
      while (index < lines.length && !closesFence(lines[index] ?? "", fence.marker)) {
        body.push(lines[index] ?? "");
        index += 1;
      }
      index += 1; // the closing fence (or past the end: an open fence runs to the end)
      out.push(renderCodeBlock(body.join("\n"), fence.language));
      continue;
    }
    const headingMatch = heading.exec(line);
    if (headingMatch) {
      flushParagraph();
      out.push(`<b>${renderInline(headingMatch[1] ?? "")}</b>`);
      index += 1;
      continue;
    }
    if (quote.test(line)) {
      flushParagraph();
      const quoted: string[] = [];
      let quoteMatch = quote.exec(line);
      while (quoteMatch && index < lines.length) {
        quoted.push(quoteMatch[1] ?? "");
        index += 1;
        quoteMatch = quote.exec(lines[index] ?? "");
      }
      out.push(`<blockquote>${renderInline(quoted.join("\n"))}</blockquote>`);
      continue;
    }
    if (line.trim() === "") {
      flushParagraph();
      out.push(line);
      index += 1;
      continue;
    }
    paragraph.push(line);
    index += 1;
  }
  flushParagraph();
  return out.join("\n");
}

function renderCodeBlock(code: string, language: string): string {
  const safeLanguage = language.replaceAll(/[^\w+#.-]/g, "");
  if (safeLanguage === "") return `<pre>${escapeHtml(code)}</pre>`;
  return `<pre><code class="language-${safeLanguage}">${escapeHtml(code)}</code></pre>`;
}

const emphasis: readonly { marker: string; tag: string }[] = [
  { marker: "**", tag: "b" },
  { marker: "__", tag: "b" },
  { marker: "~~", tag: "s" },
  { marker: "*", tag: "i" },
  { marker: "_", tag: "i" },
];

const link = /^\[([^\]\n]+)\]\(((?:https?:\/\/|tg:\/\/|mailto:)[^\s()]+)\)/i;

function isWordCharacter(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}]/u.test(char);
}

function isSpace(char: string | undefined): boolean {
  return char === undefined || /\s/.test(char);
}

/** Length of the run of `char` starting at `index`. */
function runLength(text: string, index: number, char: string): number {
  let end = index;
  while (text[end] === char) end += 1;
  return end - index;
}

/** The index just past a code span starting at `index`, or -1 when it has no closing run. */
function codeSpanEnd(text: string, index: number): { contentEnd: number; end: number } | undefined {
  const ticks = runLength(text, index, "`");
  let search = index + ticks;
  while (search < text.length) {
    const found = text.indexOf("`", search);
    if (found < 0) return undefined;
    const closing = runLength(text, found, "`");
    if (closing === ticks) return { contentEnd: found, end: found + closing };
    search = found + closing;
  }
  return undefined;
}

function canOpen(text: string, index: number, marker: string): boolean {
  const after = text[index + marker.length];
  if (isSpace(after)) return false;
  if (marker.length === 1 && after === marker) return false;
  if (marker.startsWith("_") && isWordCharacter(text[index - 1])) return false;
  return true;
}

/** Where the partner of a `marker` whose content starts at `contentStart` is, or -1. Code spans are skipped. */
function findClose(text: string, contentStart: number, marker: string): number {
  let index = contentStart + 1; // emphasis is never empty
  while (index < text.length) {
    const char = text[index];
    if (char === "`") {
      const span = codeSpanEnd(text, index);
      index = span ? span.end : index + runLength(text, index, "`");
      continue;
    }
    if (text.startsWith(marker, index) && !isSpace(text[index - 1])) {
      const after = text[index + marker.length];
      const single = marker.length === 1;
      const partOfLongerRun = single && (after === marker || text[index - 1] === marker);
      const intraword = marker.startsWith("_") && isWordCharacter(after);
      if (!partOfLongerRun && !intraword) return index;
    }
    index += 1;
  }
  return -1;
}

/** Inline Markdown as Telegram HTML. Unmatched markers are kept literally. */
function renderInline(text: string): string {
  let out = "";
  let index = 0;
  while (index < text.length) {
    const char = text[index] ?? "";
    if (char === "`") {
      const span = codeSpanEnd(text, index);
      const ticks = runLength(text, index, "`");
      if (!span) {
        out += "`".repeat(ticks);
        index += ticks;
        continue;
      }
      let code = text.slice(index + ticks, span.contentEnd);
      if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ")) code = code.slice(1, -1);
      out += `<code>${escapeHtml(code)}</code>`;
      index = span.end;
      continue;
    }
    if (char === "[") {
      const match = link.exec(text.slice(index));
      if (match) {
        out += `<a href="${escapeAttribute(match[2] ?? "")}">${renderInline(match[1] ?? "")}</a>`;
        index += match[0].length;
        continue;
      }
    }
    if (char === "*" || char === "_" || char === "~") {
      let matched = false;
      for (const { marker, tag } of emphasis) {
        if (!text.startsWith(marker, index) || !canOpen(text, index, marker)) continue;
        const close = findClose(text, index + marker.length, marker);
        if (close < 0) continue;
        out += `<${tag}>${renderInline(text.slice(index + marker.length, close))}</${tag}>`;
        index = close + marker.length;
        matched = true;
        break;
      }
      if (matched) continue;
      const run = runLength(text, index, char);
      out += char.repeat(run);
      index += run;
      continue;
    }
    // Plain text up to the next character that may start markup, escaped in one piece (the
    // render runs at every edit of a streamed answer: one call per character was most of its cost).
    const end = nextMarkup(text, index + 1);
    out += escapeHtml(text.slice(index, end));
    index = end;
  }
  return out;
}

const markup = /[`[*_~]/g;

/** The index of the next character from `from` that may start inline markup, or the text's length. */
function nextMarkup(text: string, from: number): number {
  markup.lastIndex = from;
  const found = markup.exec(text);
  return found === null ? text.length : found.index;
}
