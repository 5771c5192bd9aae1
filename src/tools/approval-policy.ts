import { createHash } from "node:crypto";
import type { ToolRule, ToolsConfig } from "../config/schema.js";
import { canonicalJson } from "./canonical-json.js";
import { toolEntryMatches, wholeServerOf } from "./tool-list-entry.js";

/** What to do with one tool call before it runs. */
export interface PolicyDecision {
  /** `run` without asking, `ask` a person (approval card), or `block` (synthetic result). */
  action: "run" | "ask" | "block";
  /** Why, in words for logs, cards and the blocked result. */
  reason: string;
}

/** The part of the tools config the policy reads. */
export type ApprovalPolicyConfig = Pick<ToolsConfig, "approval" | "rules">;

/**
 * The approval policy, a pure function of the call and the config:
 * 1. a matching `deny` rule blocks (deny wins over everything);
 * 2. a matching `allow` rule (a configured `always`) runs without asking;
 * 3. `tools.approval` (exact name before `<server>__*`): `never` runs, `required` asks;
 * 4. otherwise ask: every tool needs approval by default.
 *
 * A rule's `match` maps argument names to regular expressions that must all match; an array
 * argument is joined with spaces, other non-strings are written as JSON, and a missing
 * argument matches nothing. Both kinds fail closed: an `allow` pattern must match the whole
 * value (`ls` allows `ls`, not `lsblk`; write `ls.*` for more), a `deny` pattern matches
 * anywhere in it (`rm` blocks `-c "rm -rf x"`; write `^rm$` for less).
 */
export function decidePolicy(
  toolName: string,
  args: Record<string, unknown>,
  tools: ApprovalPolicyConfig,
): PolicyDecision {
  const rules = tools.rules.map((rule, index) => ({ rule, number: index + 1 }));
  const applicable = rules.filter(({ rule }) => toolEntryMatches(rule.tool, toolName));
  const denied = applicable.find(({ rule }) => rule.action === "deny" && ruleMatches(rule, args));
  if (denied) return { action: "block", reason: `blocked by rule ${describeRule(denied.rule, denied.number)}` };
  const allowed = applicable.find(({ rule }) => rule.action === "allow" && ruleMatches(rule, args));
  if (allowed) return { action: "run", reason: `allowed by rule ${describeRule(allowed.rule, allowed.number)}` };
  const setting = approvalSetting(toolName, tools.approval);
  if (setting?.value === "never") {
    return { action: "run", reason: `${toolName} runs without approval (tools.approval ${setting.key}: never)` };
  }
  if (setting?.value === "required") {
    return { action: "ask", reason: `${toolName} needs approval (tools.approval ${setting.key}: required)` };
  }
  return { action: "ask", reason: `${toolName} needs approval (required by default)` };
}

function approvalSetting(
  toolName: string,
  approval: ToolsConfig["approval"],
): { key: string; value: "never" | "required" } | undefined {
  const exact = approval[toolName];
  if (exact) return { key: toolName, value: exact };
  for (const [key, value] of Object.entries(approval)) {
    if (wholeServerOf(key) !== undefined && toolEntryMatches(key, toolName)) return { key, value };
  }
  return undefined;
}

function ruleMatches(rule: ToolRule, args: Record<string, unknown>): boolean {
  return Object.entries(rule.match).every(([argumentName, pattern]) => {
    const value = argumentText(args[argumentName]);
    if (value === undefined) return false;
    const expression = compilePattern(pattern, rule.action);
    // An unreadable pattern fails closed: it never allows, and it always denies.
    if (!expression) return rule.action === "deny";
    return expression.test(value);
  });
}

function argumentText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value))
    return value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join(" ");
  return JSON.stringify(value);
}

const compiled = new Map<string, RegExp | null>();

function compilePattern(pattern: string, action: ToolRule["action"]): RegExp | undefined {
  // Both fail closed: allow must match all of the value, on one line; deny may match anywhere.
  const source = action === "allow" ? `^(?:${pattern})$` : pattern;
  const flags = action === "allow" ? "" : "s";
  const key = `${flags}/${source}`;
  let expression = compiled.get(key);
  if (expression === undefined) {
    try {
      expression = new RegExp(source, flags);
    } catch {
      expression = null;
    }
    compiled.set(key, expression);
  }
  return expression ?? undefined;
}

function describeRule(rule: ToolRule, number: number): string {
  const match = Object.entries(rule.match)
    .map(([name, pattern]) => ` ${name}=/${pattern}/`)
    .join("");
  return `${number} (${rule.tool}${match})`;
}

/** Problems with the rules' patterns, one line each (for config validation): bad regular expressions. */
export function checkRulePatterns(rules: ToolRule[]): string[] {
  const problems: string[] = [];
  rules.forEach((rule, index) => {
    for (const [name, pattern] of Object.entries(rule.match)) {
      try {
        new RegExp(pattern);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        problems.push(`tools.rules[${index}].match.${name}: not a regular expression (${why})`);
      }
    }
  });
  return problems;
}

/**
 * A stable hash of a call: the tool name and its arguments as canonical JSON (keys sorted), so
 * the same call hashes the same whatever order the model wrote the keys in. For session grants
 * and the repeat guard.
 */
export function argumentsHash(toolName: string, args: Record<string, unknown>): string {
  return createHash("sha256")
    .update(canonicalJson([toolName, args]))
    .digest("hex");
}

/** Arguments pretty-printed (2-space JSON) for an approval card, cut to `maxChars` with `…`. */
export function previewArguments(args: Record<string, unknown>, maxChars = 1000): string {
  const text = JSON.stringify(args, null, 2) ?? "{}";
  if (text.length <= maxChars) return text;
  const kept = Math.max(0, maxChars - 1);
  return `${text.slice(0, kept)}…`;
}
