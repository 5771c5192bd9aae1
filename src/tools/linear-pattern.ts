import { RE2JS } from "re2js";

/** The longest value a rule or schema pattern is matched against; longer ones are not checked. */
export const maxMatchedLength = 10_000;

/** A pattern's verdict on a value: `too-long` when the value exceeds {@link maxMatchedLength}. */
export type PatternVerdict = "match" | "no-match" | "too-long";

/** A compiled pattern that runs in time linear in the value (RE2 semantics: no backreferences or lookaround). */
export interface LinearPattern {
  /** Whether the pattern matches the whole value (`whole`) or somewhere in it. */
  test(value: string): PatternVerdict;
}

const compiled = new Map<string, RE2JS | null>();

function compile(source: string, dotAll: boolean): RE2JS | null {
  const key = `${dotAll ? "s" : ""}/${source}`;
  let expression = compiled.get(key);
  if (expression === undefined) {
    try {
      expression = RE2JS.compile(source, dotAll ? RE2JS.DOTALL : 0);
    } catch {
      expression = null;
    }
    if (compiled.size > 1_000) compiled.clear();
    compiled.set(key, expression);
  }
  return expression;
}

/**
 * Compile a pattern for linear-time matching (re2js, a pure-JS RE2 port), or undefined when it
 * is not a valid RE2 expression. `whole`: the value must match from start to end.
 */
export function compileLinearPattern(
  pattern: string,
  options: { whole: boolean; dotAll?: boolean },
): LinearPattern | undefined {
  const source = options.whole ? `^(?:${pattern})$` : pattern;
  const expression = compile(source, options.dotAll ?? false);
  if (!expression) return undefined;
  return {
    test(value) {
      if (value.length > maxMatchedLength) return "too-long";
      return expression.matcher(value).find() ? "match" : "no-match";
    },
  };
}

/** Why a pattern does not compile as RE2, or undefined when it does. */
export function linearPatternProblem(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
