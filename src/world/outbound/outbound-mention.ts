import { maskLiteralText } from "../routing/mask-literal-text.js";

/** Who a mention in outbound text points at. */
export type MentionTarget =
  | {
      kind: "person";
      /** Platform user id. */
      id: string;
      name: string;
      /** Platform handle (Telegram @username, without `@`), when known. */
      handle?: string;
    }
  | { kind: "agent"; name: string; displayName: string };

/**
 * A person or agent named in outbound text. The text keeps `@name` (so a channel that cannot
 * do better still reads well); the adapter renders each occurrence as the platform's own
 * mention (`<@U123>` in Slack, `<@123>` in Discord, a Telegram text mention or `@handle`).
 */
export interface OutboundMention {
  /** Exactly as it stands in the text, e.g. `@ana`. */
  text: string;
  target: MentionTarget;
}

/** A piece of outbound text: plain text, or one occurrence of a mention. */
export type TextSegment = { kind: "text"; text: string } | { kind: "mention"; mention: OutboundMention };

const nameCharacter = /[\p{L}\p{N}_-]/u;

/**
 * `text` cut into plain pieces and mention occurrences. An occurrence counts when it is not
 * inside code or a URL and stands alone (not part of a longer name or an e-mail address).
 * Longer mention texts win over their prefixes (`@ana` vs `@anabel`).
 */
export function splitByMentions(text: string, mentions: readonly OutboundMention[]): TextSegment[] {
  if (mentions.length === 0) return text === "" ? [] : [{ kind: "text", text }];
  const masked = maskLiteralText(text);
  const ordered = [...mentions].sort((left, right) => right.text.length - left.text.length);
  const segments: TextSegment[] = [];
  let plainStart = 0;
  let index = 0;
  while (index < text.length) {
    const found = text[index] === "@" ? ordered.find((mention) => standsAt(masked, index, mention.text)) : undefined;
    if (!found) {
      index += 1;
      continue;
    }
    if (index > plainStart) segments.push({ kind: "text", text: text.slice(plainStart, index) });
    segments.push({ kind: "mention", mention: found });
    index += found.text.length;
    plainStart = index;
  }
  if (plainStart < text.length) segments.push({ kind: "text", text: text.slice(plainStart) });
  return segments;
}

function standsAt(masked: string, index: number, mentionText: string): boolean {
  if (mentionText === "" || !masked.startsWith(mentionText, index)) return false;
  const before = index === 0 ? "" : (masked[index - 1] ?? "");
  const after = masked[index + mentionText.length] ?? "";
  return !nameCharacter.test(before) && before !== "@" && !nameCharacter.test(after);
}
