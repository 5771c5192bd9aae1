import { maskLiteralText } from "./mask-literal-text.js";

/** One `@name` in a text, with its offsets (`start` at the `@`, `end` after the name). */
export interface Mention {
  /** The name as written, without the `@`. */
  name: string;
  start: number;
  end: number;
  /** Written as a possessive (`@bob's`): a reference, never an address. */
  possessive: boolean;
}

/** The mentions that open one line: `@alice`, `@alice @bob`, `@alice, @bob and @carol`. */
export interface LeadingRun {
  mentions: Mention[];
}

export interface ScannedMentions {
  /** Every mention outside code, URLs and e-mail addresses, in text order. */
  mentions: Mention[];
  /** The address runs, one per line that opens with mentions, in text order. */
  runs: LeadingRun[];
}

/**
 * Finds the mentions of a message and which of them address someone.
 *
 * A mention is `@` plus a name (a letter, then letters, digits, `-`, `_`), where:
 * - the `@` does not follow a letter, digit, `_`, `-`, `.`, `/`, `+`, `=`, `\` or another `@`
 *   (so `bob@example.com` and `x.com/@alice` are not mentions);
 * - the name is not followed by `@`, `/` or `.` plus a letter or digit
 *   (`@alice@example.com`, the npm scope `@types/node`, the domain-like `@example.com`);
 * - it does not stand in code (inline or fenced) or in a URL.
 * Punctuation after the name ends it: `@alice,` and `@alice:` mention `alice`.
 *
 * An address is a mention at the start of a paragraph, and every mention that follows it
 * there joined only by spaces, commas, `&` or `and` (`@alice @bob please`, `@alice, @bob:`,
 * `@alice and @bob`); Markdown emphasis with `*` around the names does not matter
 * (`**@alice**, please`), since agents' answers are Markdown. Choice: the start of every line counts as a paragraph start, because
 * in chat people put one request per line without blank lines between them
 * ("@alice do X\n@bob do Y" addresses both). Not addresses: a mention in mid-sentence
 * ("ask @bob later"), a possessive (`@bob's patch`), a mention on a quoted line (`> @alice`,
 * someone else's words) and one after a list bullet (`- @alice did X` reads as a report).
 */
export function scanMentions(text: string): ScannedMentions {
  const masked = maskLiteralText(text);
  const mentions: Mention[] = [];
  const byStart = new Map<number, Mention>();
  for (const match of masked.matchAll(/@/g)) {
    const mention = mentionAt(masked, match.index);
    if (mention) {
      mentions.push(mention);
      byStart.set(mention.start, mention);
    }
  }
  const runs: LeadingRun[] = [];
  let lineStart = 0;
  while (lineStart <= masked.length) {
    const lineEnd = masked.indexOf("\n", lineStart);
    const end = lineEnd === -1 ? masked.length : lineEnd;
    const run = leadingRun(masked, lineStart, end, byStart);
    if (run) runs.push(run);
    if (lineEnd === -1) break;
    lineStart = lineEnd + 1;
  }
  return { mentions, runs };
}

const namePattern = /\p{L}[\p{L}\p{N}_-]*/uy;
const notBeforeMention = /[\p{L}\p{N}_\-./+=\\@]/u;
const possessivePattern = /['\u2019]s(?![\p{L}\p{N}_])/uy;
const separatorPattern = /\**[^\S\n]*(?:,[^\S\n]*)?(?:(?:and|&)[^\S\n]+)?\**/iy;

function mentionAt(text: string, at: number): Mention | undefined {
  const before = text[at - 1];
  if (before !== undefined && notBeforeMention.test(before)) return undefined;
  namePattern.lastIndex = at + 1;
  const name = namePattern.exec(text)?.[0];
  if (name === undefined) return undefined;
  const end = at + 1 + name.length;
  const after = text[end];
  if (after === "@" || after === "/") return undefined;
  if (after === "." && /[\p{L}\p{N}]/u.test(text[end + 1] ?? "")) return undefined;
  possessivePattern.lastIndex = end;
  return { name, start: at, end, possessive: possessivePattern.test(text) };
}

function leadingRun(text: string, lineStart: number, lineEnd: number, byStart: Map<number, Mention>) {
  let index = lineStart;
  while (index < lineEnd && /\s/.test(text[index] ?? "")) index += 1;
  // Bold or italic around the name (`**@bob**, please`) still addresses; a bullet (`* @bob`) does not.
  while (text[index] === "*") index += 1;
  const run: Mention[] = [];
  let mention = byStart.get(index);
  while (mention && !mention.possessive) {
    run.push(mention);
    separatorPattern.lastIndex = mention.end;
    separatorPattern.exec(text);
    mention = separatorPattern.lastIndex < lineEnd ? byStart.get(separatorPattern.lastIndex) : undefined;
  }
  return run.length > 0 ? { mentions: run } : undefined;
}
