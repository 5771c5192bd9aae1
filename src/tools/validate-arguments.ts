import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { RegExpEngine } from "ajv/dist/types/index.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ToolError } from "../errors/roundtable-error.js";
import { canonicalJson } from "./canonical-json.js";
import { compileLinearPattern } from "./linear-pattern.js";

/** Arguments checked against a tool's schema, or the problem found (for an `invalid` result). */
export type ArgumentCheck = { ok: true; args: Record<string, unknown> } | { ok: false; problem: string };

/** How many schema problems one answer names. */
const maxProblems = 5;

/**
 * Schema `pattern`s run in linear time (RE2), on values of at most 10,000 characters: a
 * server's schema cannot hang the service, and a longer value fails its pattern. A pattern RE2
 * cannot read makes the schema uncompilable (then the tool itself checks its input).
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = compileLinearPattern(pattern, { whole: false });
    if (!compiled)
      throw new ToolError("tool.failed", `pattern ${JSON.stringify(pattern)} is not an RE2 regular expression`);
    return { test: (value: string) => compiled.test(value) === "match" };
  },
  { code: "linear-pattern" },
);

const options = {
  allErrors: true,
  strict: false,
  validateFormats: false,
  allowUnionTypes: true,
  code: { regExp: linearRegExp },
} as const;
const draft07 = new Ajv(options);
const draft2020 = new Ajv2020(options);
/**
 * Compiled validators by the schema's canonical text (so a server's tools listed again after a
 * reconnect reuse them); `null` for a schema Ajv cannot compile.
 */
const validators = new Map<string, ValidateFunction | null>();

/**
 * Parse a model's arguments text and check it against a tool's JSON schema. Empty text counts
 * as `{}` (some models send nothing for a tool without parameters).
 */
export function validateArguments(schema: Record<string, unknown>, argumentsJson: string): ArgumentCheck {
  const parsed = parseArgumentsJson(argumentsJson);
  return parsed.ok ? checkArguments(schema, parsed.args) : parsed;
}

/** The arguments text as a JSON object, or why it is not one. */
export function parseArgumentsJson(argumentsJson: string): ArgumentCheck {
  if (argumentsJson.trim() === "") return { ok: true, args: {} };
  let value: unknown;
  try {
    value = JSON.parse(argumentsJson);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: `arguments are not valid JSON: ${why}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, problem: `arguments must be a JSON object, got ${describeJsonType(value)}` };
  }
  // JSON.parse keeps the last of two equal keys: a card showing the text would show the first.
  const duplicate = firstDuplicateKey(argumentsJson);
  if (duplicate !== undefined) {
    return {
      ok: false,
      problem: `arguments repeat the key ${JSON.stringify(duplicate.key)}${duplicate.path === "" ? "" : ` in ${duplicate.path}`}: each key may appear once`,
    };
  }
  return { ok: true, args: value as Record<string, unknown> };
}

/**
 * The first key that appears twice in one object of a valid JSON text (at any depth), with
 * the path of that object (`/a/0`); undefined when every object's keys are distinct.
 */
export function firstDuplicateKey(json: string): { key: string; path: string } | undefined {
  type Frame = { keys: Set<string> | undefined; path: string; index: number; key: string | undefined };
  const stack: Frame[] = [];
  let expectKey = false;
  let position = 0;
  while (position < json.length) {
    const character = json[position];
    const top = stack[stack.length - 1];
    if (character === '"') {
      let end = position + 1;
      while (end < json.length && json[end] !== '"') end += json[end] === "\\" ? 2 : 1;
      if (top?.keys !== undefined && expectKey) {
        const key = JSON.parse(json.slice(position, end + 1)) as string;
        if (top.keys.has(key)) return { key, path: top.path };
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      position = end + 1;
      continue;
    }
    if (character === "{" || character === "[") {
      const segment = top === undefined ? "" : top.keys === undefined ? String(top.index) : (top.key ?? "");
      const path = top === undefined ? "" : `${top.path}/${segment.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      stack.push({ keys: character === "{" ? new Set() : undefined, path, index: 0, key: undefined });
      expectKey = character === "{";
    } else if (character === "}" || character === "]") {
      stack.pop();
      expectKey = false;
    } else if (character === ",") {
      if (top?.keys === undefined && top !== undefined) top.index += 1;
      expectKey = top?.keys !== undefined;
    }
    position += 1;
  }
  return undefined;
}

/**
 * Check parsed arguments against a JSON schema (draft-07, or 2020-12 when the schema says so).
 * A schema Ajv cannot read checks nothing here: the tool itself still checks its input.
 */
export function checkArguments(schema: Record<string, unknown>, args: Record<string, unknown>): ArgumentCheck {
  const validate = validatorFor(schema);
  if (!validate || validate(args)) return { ok: true, args };
  return { ok: false, problem: describeErrors(validate.errors ?? []) };
}

function validatorFor(schema: Record<string, unknown>): ValidateFunction | undefined {
  const key = canonicalJson(schema);
  const known = validators.get(key);
  if (known !== undefined) return known ?? undefined;
  let validate: ValidateFunction | null;
  try {
    const declared = typeof schema.$schema === "string" ? schema.$schema : "";
    const { $schema: _ignored, ...body } = schema;
    validate = /2019-09|2020-12/.test(declared) ? draft2020.compile(body) : draft07.compile(body);
  } catch {
    validate = null;
  }
  validators.set(key, validate);
  return validate ?? undefined;
}

function describeErrors(errors: ErrorObject[]): string {
  const lines = errors.slice(0, maxProblems).map(describeError);
  const more = errors.length > maxProblems ? `; and ${errors.length - maxProblems} more` : "";
  return `${lines.join("; ")}${more}`;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === "" ? "arguments" : error.instancePath;
  const message = error.message ?? `fail ${error.keyword}`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "additionalProperties")
    return `${where} ${message}: ${JSON.stringify(params.additionalProperty)}`;
  if (error.keyword === "enum") return `${where} ${message}: ${JSON.stringify(params.allowedValues)}`;
  return `${where} ${message}`;
}

function describeJsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
