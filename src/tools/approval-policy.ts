import { createHash } from "node:crypto";
import type { ToolRule, ToolsConfig } from "../config/schema.js";
import { canonicalJson } from "./canonical-json.js";
import { compileLinearPattern, maxMatchedLength } from "./linear-pattern.js";
import { toolEntryMatches, wholeServerOf } from "./tool-list-entry.js";

/** What to do with one tool call before it runs. */
export interface PolicyDecision {
  /** `run` without asking, `ask` a person (approval card), or `block` (synthetic result). */
  action: "run" | "ask" | "block";
  /** Why, in words for logs, cards and the blocked result. */
  reason: string;
  /** A rule could not be checked: no rule, stored ones included, lets the call run unasked. */
  unchecked?: true;
}

/** The part of the tools config the policy reads. */
export type ApprovalPolicyConfig = Pick<ToolsConfig, "approval" | "rules">;

/**
 * The approval policy, a pure function of the call and the config:
 * 1. a matching `deny` rule blocks (deny wins over everything);
 * 2. a rule that cannot be checked makes the call asked for, whatever else applies;
 * 3. a matching `allow` rule (a configured `always`) runs without asking;
 * 4. `tools.approval` (exact name before `<server>__*`): `never` runs, `required` asks;
 * 5. otherwise ask: every tool needs approval by default.
 *
 * A rule's `match` maps argument names to regular expressions that must all match; an array
 * argument is joined with spaces, other non-strings are written as JSON. Patterns are RE2
 * (matched in linear time, so no pattern can hang the service) on values of at most 10,000
 * characters. Both kinds fail closed: an `allow` pattern must match the whole value (`ls`
 * allows `ls`, not `lsblk`; write `ls.*` for more) and a missing argument never allows; a
 * `deny` pattern matches anywhere in the value (`rm` blocks `-c "rm -rf x"`; write `^rm$` for
 * less). A rule that cannot be checked (a value longer than 10,000 characters, or an argument
 * absent from the call that a `deny` rule for this one tool names) never lets the call run
 * unasked: it is asked for, and the card says which rule could not be checked. A server-wide
 * (`<server>__*`) rule does not apply to calls without its arguments (not every tool has them).
 */
export function decidePolicy(
  toolName: string,
  args: Record<string, unknown>,
  tools: ApprovalPolicyConfig,
): PolicyDecision {
  const rules = tools.rules.map((rule, index) => ({ rule, number: index + 1 }));
  const applicable = rules
    .filter(({ rule }) => toolEntryMatches(rule.tool, toolName))
    .map((entry) => ({ ...entry, verdict: ruleVerdict(entry.rule, args) }));
  const denied = applicable.find(({ rule, verdict }) => rule.action === "deny" && verdict.kind === "match");
  if (denied) return { action: "block", reason: `blocked by rule ${describeRule(denied.rule, denied.number)}` };
  const unchecked = applicable.find(
    ({ rule, verdict }) => verdict.kind === "unchecked" && (rule.action === "deny" || verdict.why !== "absent"),
  );
  if (unchecked && unchecked.verdict.kind === "unchecked") {
    const why = uncheckedWords(unchecked.verdict);
    return {
      action: "ask",
      unchecked: true,
      reason: `${toolName} needs approval: rule ${describeRule(unchecked.rule, unchecked.number)} could not be checked (${why})`,
    };
  }
  const allowed = applicable.find(({ rule, verdict }) => rule.action === "allow" && verdict.kind === "match");
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

/** A rule's verdict on a call's arguments. */
type RuleVerdict =
  | { kind: "match" }
  | { kind: "no-match" }
  | { kind: "unchecked"; argument: string; why: "absent" | "too-long"; length?: number };

function ruleVerdict(rule: ToolRule, args: Record<string, unknown>): RuleVerdict {
  let unchecked: RuleVerdict | undefined;
  for (const [argumentName, pattern] of Object.entries(rule.match)) {
    const value = argumentText(args[argumentName]);
    if (value === undefined) {
      // A server-wide rule names an argument that some of the server's tools do not have.
      if (wholeServerOf(rule.tool) !== undefined) return { kind: "no-match" };
      unchecked ??= { kind: "unchecked", argument: argumentName, why: "absent" };
      continue;
    }
    const expression = compileLinearPattern(pattern, {
      whole: rule.action === "allow",
      dotAll: rule.action === "deny",
    });
    // An unreadable pattern fails closed: it never allows, and it always denies.
    if (!expression) {
      if (rule.action === "deny") continue;
      return { kind: "no-match" };
    }
    const verdict = expression.test(value);
    if (verdict === "no-match") return { kind: "no-match" };
    if (verdict === "too-long")
      unchecked ??= { kind: "unchecked", argument: argumentName, why: "too-long", length: value.length };
  }
  return unchecked ?? { kind: "match" };
}

function uncheckedWords(verdict: Extract<RuleVerdict, { kind: "unchecked" }>): string {
  if (verdict.why === "absent") return `the argument ${verdict.argument} is absent`;
  return `${verdict.argument} is ${verdict.length} characters long; rules check at most ${maxMatchedLength}`;
}

function argumentText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value))
    return value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join(" ");
  return JSON.stringify(value);
}

function describeRule(rule: ToolRule, number: number): string {
  const match = Object.entries(rule.match)
    .map(([name, pattern]) => ` ${name}=/${pattern}/`)
    .join("");
  return `${number} (${rule.tool}${match})`;
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
