import type { z } from "zod";
import { type ConfigPath, describeValue, formatConfigPath, valueAtPath } from "./config-path.js";
import { closestWord } from "./closest-word.js";
import { objectKeys, requiredKeys, schemaAtPath, unionOptions } from "./schema-at-path.js";

/** One problem found in a config file, before the file label is added. */
export interface ConfigProblem {
  path: ConfigPath;
  message: string;
}

interface FormatContext {
  /** The schema at the root of `path` (a union branch when recursing into one). */
  schema: z.ZodType;
  /** The data the schema was applied to. */
  data: unknown;
}

/**
 * Turns zod issues into plain sentences that say what was expected and what was found, e.g.
 * `worlds[0].respond: expected "addressed" or "all", got "everyone"`.
 */
export function problemsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
  data: unknown,
): ConfigProblem[] {
  return issues.flatMap((issue) => problemsFromIssue(issue, [], { schema, data }));
}

function problemsFromIssue(issue: z.core.$ZodIssue, base: ConfigPath, context: FormatContext): ConfigProblem[] {
  const relative = issue.path;
  const path = [...base, ...relative];
  const value = valueAtPath(context.data, path);
  switch (issue.code) {
    case "invalid_type":
      return [{ path, message: invalidTypeMessage(issue.expected, value) }];
    case "too_small":
      return [{ path, message: tooSmallMessage(issue.origin, Number(issue.minimum), issue.inclusive ?? true, value) }];
    case "too_big":
      return [{ path, message: tooBigMessage(issue.origin, Number(issue.maximum), issue.inclusive ?? true, value) }];
    case "invalid_value":
      return [
        {
          path,
          message: `expected ${issue.values.map((item) => JSON.stringify(item)).join(" or ")}, got ${describeValue(value)}`,
        },
      ];
    case "unrecognized_keys": {
      const allowed = objectKeys(schemaAtPath(context.schema, relativeTo(base, path))) ?? [];
      return issue.keys.map((key) => ({ path, message: unknownKeyMessage(path, key, allowed) }));
    }
    case "invalid_format":
      if (issue.format === "url") return [{ path, message: `expected a URL, got ${describeValue(value)}` }];
      if (issue.format === "regex") return [{ path, message: `${issue.message}, got ${describeValue(value)}` }];
      return [{ path, message: `expected ${issue.format}, got ${describeValue(value)}` }];
    case "invalid_key": {
      const key = path[path.length - 1];
      const first = issue.issues[0];
      const reason = first?.code === "invalid_format" ? first.message : "not a valid name";
      return [{ path: path.slice(0, -1), message: `invalid name ${JSON.stringify(String(key))}: ${reason}` }];
    }
    case "invalid_union":
      return unionProblems(issue, path, base, context);
    default:
      return [{ path, message: issue.message }];
  }
}

function unionProblems(
  issue: z.core.$ZodIssueInvalidUnion,
  path: ConfigPath,
  base: ConfigPath,
  context: FormatContext,
): ConfigProblem[] {
  const value = valueAtPath(context.data, path);
  const branches = issue.errors;
  const typeOnly = branches.every(
    (branch) => branch.length === 1 && branch[0]?.code === "invalid_type" && branch[0].path.length === 0,
  );
  if (typeOnly) {
    const expected = branches.map((branch) => (branch[0] as z.core.$ZodIssueInvalidType).expected);
    return [{ path, message: `expected ${expected.map(typeWord).join(" or ")}, got ${describeValue(value)}` }];
  }
  const options = unionOptions(schemaAtPath(context.schema, relativeTo(base, path)));
  const fewest = Math.min(...branches.map((branch) => branch.length));
  const best = branches.map((branch, index) => ({ branch, index })).filter(({ branch }) => branch.length === fewest);
  const only = best.length === 1 ? best[0] : undefined;
  const branchSchema = only ? options[only.index] : undefined;
  if (only && branchSchema) {
    return only.branch.flatMap((inner) => problemsFromIssue(inner, path, { schema: branchSchema, data: context.data }));
  }
  const shapes = options.map((option) => {
    const required = requiredKeys(option);
    return required.length > 0 ? `a mapping with ${required.join(", ")}` : "a mapping";
  });
  return [{ path, message: `expected ${shapes.join(", or ")}, got ${describeValue(value)}` }];
}

function relativeTo(base: ConfigPath, path: ConfigPath): ConfigPath {
  return path.slice(base.length);
}

function typeWord(expected: string): string {
  const words: Record<string, string> = {
    string: "a string",
    number: "a number",
    int: "a whole number",
    boolean: "true or false",
    object: "a mapping",
    record: "a mapping",
    array: "a list",
  };
  return words[expected] ?? expected;
}

function invalidTypeMessage(expected: string, value: unknown): string {
  if (value === undefined) return `missing (expected ${typeWord(expected)})`;
  return `expected ${typeWord(expected)}, got ${describeValue(value)}`;
}

function tooSmallMessage(origin: string, minimum: number, inclusive: boolean, value: unknown): string {
  if (origin === "array")
    return minimum === 1 ? "expected at least 1 item, got an empty list" : `expected at least ${minimum} items`;
  if (origin === "string")
    return minimum === 1 ? "expected a non-empty string" : `expected at least ${minimum} characters`;
  return `expected a number ${inclusive ? ">=" : ">"} ${minimum}, got ${describeValue(value)}`;
}

function tooBigMessage(origin: string, maximum: number, inclusive: boolean, value: unknown): string {
  if (origin === "array") return `expected at most ${maximum} items`;
  if (origin === "string") return `expected at most ${maximum} characters`;
  return `expected a number ${inclusive ? "<=" : "<"} ${maximum}, got ${describeValue(value)}`;
}

function unknownKeyMessage(path: ConfigPath, key: string, allowed: string[]): string {
  const where = path.length === 0 ? "unknown top-level key" : "unknown key";
  const suggestion = closestWord(key, allowed);
  const hint = suggestion ? `did you mean "${suggestion}"? ` : "";
  const list = allowed.length > 0 ? ` (${hint}expected one of: ${allowed.join(", ")})` : "";
  return `${where} ${JSON.stringify(key)}${list}`;
}

/** `label: path: message`, or `label: message` for the top level. */
export function formatProblem(label: string, problem: ConfigProblem): string {
  const where = formatConfigPath(problem.path);
  return where === "" ? `${label}: ${problem.message}` : `${label}: ${where}: ${problem.message}`;
}
