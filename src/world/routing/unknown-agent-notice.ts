import { closestName } from "./closest-name.js";

/**
 * What the world answers when a message addresses names that are not agents here, e.g.
 * "There is no agent named @carol here. Agents in this world: @alice, @bob." A name that is
 * a likely typo of an agent's gets a "Did you mean …?".
 */
export function unknownAgentNotice(unknown: readonly string[], known: readonly string[]): string {
  const names = [...new Set(unknown.map((name) => name.replace(/^@/, "")))];
  const missing =
    names.length === 1
      ? `There is no agent named @${names[0]} here.`
      : `There are no agents named ${list(names.map((name) => `@${name}`))} here.`;
  const suggestions = [...new Set(names.map((name) => closestName(name, known)).filter((name) => name !== undefined))];
  const guess =
    suggestions.length > 0
      ? ` Did you mean ${list(
          suggestions.map((name) => `@${name}`),
          "or",
        )}?`
      : "";
  const present =
    known.length === 0
      ? " This world has no agents."
      : ` Agents in this world: ${known.map((name) => `@${name}`).join(", ")}.`;
  return missing + guess + present;
}

/** "a", "a and b", "a, b and c". */
function list(items: readonly string[], conjunction = "and"): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} ${conjunction} ${items[items.length - 1]}`;
}

/**
 * What the world answers a person whose message addresses nobody in a world without a default
 * agent (nothing would answer it), e.g. "Nobody answers a message that addresses no agent here:
 * start it with @alice or @bob (a reply to an agent's message goes to that agent)."
 */
export function unaddressedNotice(known: readonly string[]): string {
  if (known.length === 0) return "This world has no agents, so nobody answers here.";
  const names = list(
    known.map((name) => `@${name}`),
    "or",
  );
  return `Nobody answers a message that addresses no agent here: start it with ${names} (a reply to an agent's message goes to that agent).`;
}
