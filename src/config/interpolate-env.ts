import { randomBytes } from "node:crypto";

/**
 * `${VAR}` and `${VAR:-default}` in a config file, resolved against the environment.
 *
 * The references are swapped for plain placeholder words *before* the YAML is parsed, so a
 * reference may sit anywhere a word may (flow mappings such as `{ apiKey: ${KEY} }` included)
 * and a value can never change the YAML structure. After parsing, `restore` puts the values in.
 *
 * - `${VAR}`: the variable, or the empty string when it is unset.
 * - `${VAR:-default}`: the default when the variable is unset or empty.
 * - `$${...}`: a literal `${...}`.
 * - `${VAR` with no closing brace on its line is reported (`unterminated`), not kept as text.
 *
 * Values are always strings (a numeric value stays the string `"6"`).
 */
export interface ProtectedText {
  /** The text with every reference replaced by a placeholder of letters and digits. */
  text: string;
  /** Maps an offset in `text` back to the offset in the original text (for error positions). */
  originalOffset(offset: number): number;
  /** Offsets in the original text of `${NAME` references that are never closed on their line. */
  unterminated: number[];
  /** Resolves the placeholders in one string; `unset` collects variables that were unset with no default. */
  restore(value: string, unset?: Set<string>): string;
}

const referencePattern = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}\r\n]*))?\}/g;
/** The start of a reference (not an escaped `$${`); in text no reference matched, it is one never closed. */
const referenceStart = /(?<!\$)\$\{[A-Za-z_]/g;

interface Reference {
  escaped: boolean;
  name: string;
  fallback: string | undefined;
  source: string;
}

export function protectEnvReferences(original: string, env: Record<string, string | undefined>): ProtectedText {
  const nonce = uniqueNonce(original);
  const references: Reference[] = [];
  /** [offset in protected text, offset in original] pairs at the start of each placeholder and after it. */
  const anchors: Array<[number, number]> = [];
  let text = "";
  const unterminated: number[] = [];
  const findUnterminated = (from: number, to: number): void => {
    for (const open of original.slice(from, to).matchAll(referenceStart)) unterminated.push(from + open.index);
  };
  let last = 0;
  for (const match of original.matchAll(referencePattern)) {
    const start = match.index;
    findUnterminated(last, start);
    text += original.slice(last, start);
    const placeholder = `RTENV${nonce}R${references.length}X`;
    anchors.push([text.length, start]);
    text += placeholder;
    last = start + match[0].length;
    anchors.push([text.length, last]);
    references.push({ escaped: match[1] === "$", name: match[2] ?? "", fallback: match[3], source: match[0] });
  }
  findUnterminated(last, original.length);
  text += original.slice(last);
  const placeholderPattern = new RegExp(`RTENV${nonce}R(\\d+)X`, "g");

  return {
    text,
    unterminated,
    originalOffset(offset) {
      let mapped = offset;
      for (const [protectedOffset, originalOffset] of anchors) {
        if (protectedOffset > offset) break;
        mapped = originalOffset + (offset - protectedOffset);
      }
      return mapped;
    },
    restore(value, unset) {
      return value.replace(placeholderPattern, (_whole, index: string) => {
        const reference = references[Number(index)];
        if (!reference) return "";
        if (reference.escaped) return reference.source.slice(1);
        const found = env[reference.name];
        if (reference.fallback !== undefined) return found === undefined || found === "" ? reference.fallback : found;
        if (found === undefined) unset?.add(reference.name);
        return found ?? "";
      });
    },
  };
}

function uniqueNonce(text: string): string {
  for (;;) {
    const nonce = randomBytes(6).toString("hex");
    if (!text.includes(nonce)) return nonce;
  }
}
