import { parseDocument } from "yaml";
import { ConfigError } from "../errors/roundtable-error.js";
import { type ConfigPath, formatConfigPath } from "./config-path.js";
import { protectEnvReferences } from "./interpolate-env.js";

/** A parsed config file before validation. */
export interface ParsedConfigText {
  /** Plain data (mappings, lists, scalars) with `${VAR}` references resolved. */
  data: unknown;
  /** Config paths (`formatConfigPath`) whose value used a variable that is not set, with those names. */
  unsetVariables: Map<string, string[]>;
}

/**
 * Parses YAML text and resolves `${VAR}` references in keys and string values. YAML syntax
 * errors become a `ConfigError` naming the file, line and column of the original text.
 */
export function parseConfigText(
  text: string,
  label: string,
  env: Record<string, string | undefined>,
): ParsedConfigText {
  const protectedText = protectEnvReferences(text, env);
  const [open] = protectedText.unterminated;
  if (open !== undefined) {
    const { line, col } = linePosition(text, open);
    const name = /^\$\{([A-Za-z0-9_]*)/.exec(text.slice(open))?.[1] ?? "";
    throw new ConfigError(
      `${label}: line ${line}, column ${col}: \${${name} is not closed: write \${${name}} (or $\${ for a literal \${)\n${snippet(text, line, col)}`,
    );
  }
  // Integers are read exactly (BigInt), so a Discord id written without quotes keeps its digits.
  const document = parseDocument(protectedText.text, { prettyErrors: false, uniqueKeys: true, intAsBigInt: true });
  const [first, ...others] = document.errors;
  if (first) {
    const offset = protectedText.originalOffset(first.pos[0]);
    const { line, col } = linePosition(text, offset);
    const more = others.length > 0 ? ` (and ${others.length} more YAML error${others.length > 1 ? "s" : ""})` : "";
    const message = `${label}: line ${line}, column ${col}: ${firstLine(first.message)}${more}\n${snippet(text, line, col)}`;
    throw new ConfigError(message, { cause: first });
  }
  const unsetVariables = new Map<string, string[]>();
  const resolve = (value: unknown, path: ConfigPath): unknown => {
    if (typeof value === "string") {
      const unset = new Set<string>();
      const restored = protectedText.restore(value, unset);
      if (unset.size > 0) unsetVariables.set(formatConfigPath(path), [...unset]);
      return restored;
    }
    if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    if (Array.isArray(value)) return value.map((item, index) => resolve(item, [...path, index]));
    if (value !== null && typeof value === "object" && !(value instanceof Date)) {
      const result: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const resolvedKey = protectedText.restore(key);
        result[resolvedKey] = resolve(item, [...path, resolvedKey]);
      }
      return result;
    }
    return value;
  };
  return { data: resolve(document.toJS({ maxAliasCount: 1000 }), []), unsetVariables };
}

/** 1-based line and column of an offset. */
function linePosition(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, Math.min(offset, text.length));
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, col: before.length - lineStart + 1 };
}

function firstLine(message: string): string {
  return message.split("\n")[0]?.trim() ?? message;
}

function snippet(text: string, line: number, column: number): string {
  const source = (text.split(/\r?\n/)[line - 1] ?? "").replace(/\t/g, " ");
  const gutter = String(line);
  return `  ${gutter} | ${source}\n  ${" ".repeat(gutter.length)} | ${" ".repeat(Math.max(0, column - 1))}^`;
}
