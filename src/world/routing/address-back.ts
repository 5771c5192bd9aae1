import { resolveName } from "./resolve-name.js";
import { scanMentions } from "./scan-mentions.js";

/**
 * Auto-mention: the text an agent (`self`) posts in answer to another agent (`replyTo`).
 *
 * - A self-mention in an address run is removed (`@bob here is…` by bob → `here is…`;
 *   `@bob, @alice: …` → `@alice: …`). Mid-sentence self-references stay.
 * - When what is left addresses nobody at a paragraph start, it is addressed back to
 *   `replyTo`: `@alice ` is put in front (on a line of its own when the text opens with a
 *   block such as a code fence, a quote or a list, which a prefix would break). An
 *   address to anyone counts, to an agent or to a person; a mid-sentence mention does not,
 *   because it is a reference that starts no turn ("I agree with @carol" still goes back).
 * - Nothing is put in front when `replyTo` is not one of `knownAgents` (a person, an agent
 *   no longer in the world), is `self`, or when the text is blank.
 */
export function addressBack(text: string, replyTo: string, self: string, knownAgents: readonly string[]): string {
  const withoutSelf = removeSelfAddresses(text, self);
  const target = resolveName(replyTo, knownAgents);
  if (target === undefined || target.toLowerCase() === self.toLowerCase()) return withoutSelf;
  if (withoutSelf.trim() === "") return withoutSelf;
  if (scanMentions(withoutSelf).runs.length > 0) return withoutSelf;
  const body = withoutSelf.trimStart();
  return opensWithBlock(body) ? `@${target}\n${body}` : `@${target} ${body}`;
}

/** Removes `self` from every address run, keeping the separators that stood before the others. */
function removeSelfAddresses(text: string, self: string): string {
  const key = self.toLowerCase();
  const edits: Array<{ start: number; end: number; replacement: string }> = [];
  for (const { mentions } of scanMentions(text).runs) {
    const first = mentions[0];
    const last = mentions[mentions.length - 1];
    if (first === undefined || last === undefined) continue;
    if (mentions.every((mention) => mention.name.toLowerCase() !== key)) continue;
    let replacement = "";
    mentions.forEach((mention, index) => {
      if (mention.name.toLowerCase() === key) return;
      const previous = mentions[index - 1];
      if (replacement !== "" && previous !== undefined) replacement += text.slice(previous.end, mention.start);
      replacement += text.slice(mention.start, mention.end);
    });
    // A run of only self-mentions goes with the punctuation and spaces that ended it: "@bob: here" → "here".
    const rest = replacement === "" ? (/^\**[,:;.!?]*[^\S\n]*/.exec(text.slice(last.end))?.[0] ?? "") : "";
    const emphasis = replacement === "" ? (/\**$/.exec(text.slice(0, first.start))?.[0] ?? "") : "";
    edits.push({ start: first.start - emphasis.length, end: last.end + rest.length, replacement });
  }
  let result = text;
  for (const { start, end, replacement } of edits.reverse()) {
    result = result.slice(0, start) + replacement + result.slice(end);
  }
  return result;
}

function opensWithBlock(text: string): boolean {
  return /^(?:```|~~~|>|[-*+\u2022]\s|\d+[.)]\s|#)/.test(text);
}
