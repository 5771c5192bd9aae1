/**
 * A PDF's page count for the request view's budget, read from the document's structure as a
 * PDF reader does: the trailer's (or cross-reference stream's) `/Root`, the catalog's `/Pages`,
 * that page tree's `/Count` and its `/Kids` walked to the leaves. Names are read with their
 * `#xx` escapes (`/P#61ge` is `/Page`), objects are found at the top level and inside object
 * streams (`/Type /ObjStm`, Flate-compressed). A document whose page tree cannot be read is
 * unknown (undefined): the caller refuses it rather than guess.
 */
import { inflateSync } from "node:zlib";

type PdfValue =
  | { kind: "number"; value: number }
  | { kind: "name"; value: string }
  | { kind: "ref"; num: number }
  | { kind: "dict"; entries: Map<string, PdfValue> }
  | { kind: "array"; items: PdfValue[] }
  | { kind: "other" };

/** Page tree nodes and object stream bytes read at most (a hostile file cannot make this slow). */
const maxNodes = 100_000;
const maxDepth = 64;
const maxInflatedBytes = 64 * 1024 * 1024;
/**
 * Values read in all, for one document (well under a second of parsing): objects that
 * point at the same long value again and again, or nest as deep as allowed, are work without
 * bound otherwise. Past it (or past {@link maxInflatedBytes} inflated in all) the count is unknown.
 */
const maxValues = 1_000_000;

/** What one document may still cost; {@link TooCostly} is thrown when it is spent. */
interface Work {
  values: number;
  inflated: number;
}

class TooCostly extends Error {}

const delimiters = new Set(["(", ")", "<", ">", "[", "]", "{", "}", "/", "%"]);
const isWhite = (character: string | undefined) =>
  character === " " ||
  character === "\n" ||
  character === "\r" ||
  character === "\t" ||
  character === "\f" ||
  character === "\0";

/** Reads one PDF value from `text` at `position`; `end` is where it stopped. */
class ValueReader {
  position: number;
  constructor(
    private readonly text: string,
    start: number,
    private readonly work: Work,
  ) {
    this.position = start;
  }

  private skip(): void {
    while (this.position < this.text.length) {
      const character = this.text[this.position];
      if (isWhite(character)) this.position += 1;
      else if (character === "%") {
        while (this.position < this.text.length && !"\r\n".includes(this.text[this.position] ?? "")) this.position += 1;
      } else return;
    }
  }

  private word(): string {
    const start = this.position;
    while (this.position < this.text.length) {
      const character = this.text[this.position];
      if (isWhite(character) || delimiters.has(character ?? "")) break;
      this.position += 1;
    }
    return this.text.slice(start, this.position);
  }

  value(depth = 0): PdfValue | undefined {
    if (depth > maxDepth) return undefined;
    if (--this.work.values < 0) throw new TooCostly("too many values");
    this.skip();
    const character = this.text[this.position];
    if (character === undefined) return undefined;
    if (character === "/") {
      this.position += 1;
      // `#xx` in a name is the byte xx: `/P#61ge` is `/Page`.
      const raw = this.word();
      return {
        kind: "name",
        value: raw.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
      };
    }
    if (this.text.startsWith("<<", this.position)) {
      this.position += 2;
      const entries = new Map<string, PdfValue>();
      for (;;) {
        this.skip();
        if (this.text.startsWith(">>", this.position)) {
          this.position += 2;
          return { kind: "dict", entries };
        }
        const key = this.value(depth + 1);
        if (key?.kind !== "name") return undefined;
        const entry = this.value(depth + 1);
        if (entry === undefined) return undefined;
        entries.set(key.value, entry);
      }
    }
    if (character === "[") {
      this.position += 1;
      const items: PdfValue[] = [];
      for (;;) {
        this.skip();
        if (this.text[this.position] === "]") {
          this.position += 1;
          return { kind: "array", items };
        }
        const item = this.value(depth + 1);
        if (item === undefined) return undefined;
        items.push(item);
      }
    }
    if (character === "(") return this.literalString();
    if (character === "<") {
      const end = this.text.indexOf(">", this.position);
      if (end < 0) return undefined;
      this.position = end + 1;
      return { kind: "other" };
    }
    const word = this.word();
    if (word === "") return undefined;
    if (/^[+-]?\d+$/.test(word)) {
      // `12 0 R` is a reference; else the number alone.
      const after = this.position;
      this.skip();
      const generation = this.word();
      this.skip();
      if (
        /^\d+$/.test(generation) &&
        this.text[this.position] === "R" &&
        !/[A-Za-z]/.test(this.text[this.position + 1] ?? "")
      ) {
        this.position += 1;
        return { kind: "ref", num: Number(word) };
      }
      this.position = after;
      return { kind: "number", value: Number(word) };
    }
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) return { kind: "number", value: Number(word) };
    return { kind: "other" };
  }

  private literalString(): PdfValue {
    let nesting = 0;
    while (this.position < this.text.length) {
      const character = this.text[this.position];
      this.position += character === "\\" ? 2 : 1;
      if (character === "(") nesting += 1;
      else if (character === ")" && --nesting === 0) break;
    }
    return { kind: "other" };
  }
}

/** The document's objects by number: where each starts (the last definition wins, as for updates). */
class PdfObjects {
  private readonly offsets = new Map<number, number>();
  private readonly packed = new Map<number, PdfValue>();
  private packedRead = false;

  constructor(
    private readonly text: string,
    readonly work: Work,
  ) {
    for (const match of text.matchAll(/(?<![0-9])(\d+)\s+(\d+)\s+obj\b/g)) {
      this.offsets.set(Number(match[1]), (match.index ?? 0) + match[0].length);
    }
  }

  /** The value of object `num` (a top-level one, else one inside an object stream). */
  get(num: number): PdfValue | undefined {
    const offset = this.offsets.get(num);
    if (offset !== undefined) return new ValueReader(this.text, offset, this.work).value();
    this.readObjectStreams();
    return this.packed.get(num);
  }

  /** A value with a reference followed (once: a reference to a reference is not PDF). */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    return value?.kind === "ref" ? this.get(value.num) : value;
  }

  /** Every top-level object's dictionary, to find cross-reference and object streams. */
  *dictionaries(): Generator<{ entries: Map<string, PdfValue>; end: number }> {
    for (const offset of this.offsets.values()) {
      const reader = new ValueReader(this.text, offset, this.work);
      const value = reader.value();
      if (value?.kind === "dict") yield { entries: value.entries, end: reader.position };
    }
  }

  /** A stream object's bytes after its dictionary (inflated when `/FlateDecode`), or undefined. */
  streamBytes(entries: Map<string, PdfValue>, end: number): Buffer | undefined {
    const keyword = /^\s*stream\r?\n/.exec(this.text.slice(end, end + 32));
    if (!keyword) return undefined;
    const start = end + keyword[0].length;
    const length = this.resolve(entries.get("Length"));
    const stop =
      length?.kind === "number" && length.value >= 0 ? start + length.value : this.text.indexOf("endstream", start);
    if (stop < start || stop > this.text.length) return undefined;
    const raw = Buffer.from(this.text.slice(start, stop), "latin1");
    const filter = this.resolve(entries.get("Filter"));
    const filters = filter?.kind === "array" ? filter.items : filter === undefined ? [] : [filter];
    if (filters.length === 0) return raw;
    if (filters.length !== 1 || filters[0]?.kind !== "name" || filters[0].value !== "FlateDecode") return undefined;
    if (this.work.inflated <= 0) throw new TooCostly("too many bytes inflated");
    let inflated: Buffer;
    try {
      inflated = inflateSync(raw, { maxOutputLength: this.work.inflated });
    } catch {
      return undefined;
    }
    this.work.inflated -= inflated.length;
    return inflated;
  }

  private readObjectStreams(): void {
    if (this.packedRead) return;
    this.packedRead = true;
    for (const { entries, end } of this.dictionaries()) {
      const type = entries.get("Type");
      const count = entries.get("N");
      const first = entries.get("First");
      if (type?.kind !== "name" || type.value !== "ObjStm" || count?.kind !== "number" || first?.kind !== "number")
        continue;
      const bytes = this.streamBytes(entries, end);
      if (!bytes) continue;
      const inner = bytes.toString("latin1");
      // Entries at the same offset are one value: read once.
      const readAt = new Map<number, PdfValue | undefined>();
      const header = inner.slice(0, first.value).trim().split(/\s+/).map(Number);
      for (let index = 0; index + 1 < header.length && index / 2 < count.value; index += 2) {
        const num = header[index] ?? Number.NaN;
        const at = first.value + (header[index + 1] ?? Number.NaN);
        if (!Number.isInteger(num) || !Number.isInteger(at) || this.offsets.has(num)) continue;
        if (!readAt.has(at)) readAt.set(at, new ValueReader(inner, at, this.work).value());
        const value = readAt.get(at);
        if (value !== undefined) this.packed.set(num, value);
      }
    }
  }
}

/** The `/Root` reference: the last trailer's, else a cross-reference stream's. */
function rootOf(text: string, objects: PdfObjects): PdfValue | undefined {
  let root: PdfValue | undefined;
  for (const match of text.matchAll(/trailer/g)) {
    const trailer = new ValueReader(text, (match.index ?? 0) + match[0].length, objects.work).value();
    if (trailer?.kind === "dict") root = trailer.entries.get("Root") ?? root;
  }
  if (root) return root;
  for (const { entries } of objects.dictionaries()) {
    const type = entries.get("Type");
    if (type?.kind === "name" && type.value === "XRef") root = entries.get("Root") ?? root;
  }
  return root;
}

/**
 * The number of pages of a PDF, or undefined when its page tree cannot be read. The larger of
 * the root's `/Count` and the leaves found walking `/Kids` (a tree that claims fewer pages than
 * it holds is counted by what it holds).
 */
export function countPdfPages(bytes: Uint8Array): number | undefined {
  try {
    return countPages(bytes);
  } catch (error) {
    if (error instanceof TooCostly) return undefined;
    throw error;
  }
}

function countPages(bytes: Uint8Array): number | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  if (!text.startsWith("%PDF-")) return undefined;
  const objects = new PdfObjects(text, { values: maxValues, inflated: maxInflatedBytes });
  const catalog = objects.resolve(rootOf(text, objects));
  if (catalog?.kind !== "dict") return undefined;
  const tree = objects.resolve(catalog.entries.get("Pages"));
  if (tree?.kind !== "dict") return undefined;
  const declared = tree.entries.get("Count");
  let visited = 0;
  const seen = new Set<number>();
  const leaves = (node: PdfValue | undefined, depth: number): number | undefined => {
    if (node?.kind !== "dict" || depth > maxDepth || ++visited > maxNodes) return undefined;
    const type = node.entries.get("Type");
    if (type?.kind === "name" && type.value === "Page") return 1;
    const kids = objects.resolve(node.entries.get("Kids"));
    if (kids?.kind !== "array") return undefined;
    let sum = 0;
    for (const kid of kids.items) {
      if (kid.kind !== "ref" || seen.has(kid.num)) return undefined;
      seen.add(kid.num);
      const counted = leaves(objects.get(kid.num), depth + 1);
      if (counted === undefined) return undefined;
      sum += counted;
    }
    return sum;
  };
  const walked = leaves(tree, 0);
  const count =
    declared?.kind === "number" && Number.isInteger(declared.value) && declared.value >= 0 ? declared.value : undefined;
  if (walked === undefined && count === undefined) return undefined;
  return Math.max(walked ?? 0, count ?? 0);
}
