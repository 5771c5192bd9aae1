import {
  type ApprovalCard,
  type ApprovalOutcome,
  hasInvisibleCharacters,
  invisibleCharactersNotice,
  type OutboundText,
  revealInvisible,
} from "../../src/world/channel-adapter.js";

/**
 * Control characters (Cc but newline and tab: ESC, CR, backspace, C1) and the bidi overrides
 * and isolates, as `\u` escapes: an agent's text cannot move the cursor, recolour or rewrite
 * the terminal (an approval line hidden behind a fake one). The console's own prompt and line
 * clear are written apart from this.
 */
const terminalUnsafe = /(?![\n\t])[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu;

export function terminalSafe(text: string): string {
  return text.replace(terminalUnsafe, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `<sender>: <text>` */
export function renderMessageLine(message: OutboundText): string {
  return `${message.author.displayName ?? message.author.name}: ${message.text}`;
}

/** One line, e.g. `approval 7f3a: alice wants to run shell_cmd {"command":"ls"} — /approve once|session|deny 7f3a` */
export function renderApprovalLine(card: ApprovalCard): string {
  const reasoning = card.reasoning === undefined ? "" : `${card.agent}: ${revealInvisible(card.reasoning)}\n`;
  const line = `${reasoning}approval ${card.shortId}: ${card.agent} wants to run ${card.tool} ${revealInvisible(card.argumentsJson)} — /approve ${card.choices.join("|")} ${card.shortId}`;
  return hasInvisibleCharacters(card.argumentsJson) ? `${line}\n${invisibleCharactersNotice}` : line;
}

const stateWords: Record<ApprovalOutcome["state"], string> = {
  approved: "approved",
  denied: "denied",
  expired: "expired (no decision in time)",
  skipped: "skipped (a newer message replaced it)",
};

/** e.g. `approval 7f3a: approved once by ana` */
export function renderOutcomeLine(outcome: ApprovalOutcome): string {
  const scope =
    outcome.state === "approved" && outcome.choice === "session"
      ? " for this session"
      : outcome.state === "approved" && outcome.choice === "always"
        ? " (always allowed)"
        : outcome.state === "approved"
          ? " once"
          : "";
  if (outcome.state === "skipped" && outcome.note !== undefined) {
    return `approval ${outcome.shortId}: skipped (${outcome.note})`;
  }
  const where = outcome.decidedBy?.where === undefined ? "" : ` ${outcome.decidedBy.where}`;
  const who = outcome.decidedBy ? ` by ${outcome.decidedBy.name}${where}` : "";
  return `approval ${outcome.shortId}: ${stateWords[outcome.state]}${scope}${who}`;
}
