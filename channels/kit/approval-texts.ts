import { assertNever } from "../../src/errors/assert-never.js";
import { type ApprovalOutcome, revealInvisible } from "../../src/world/channel-adapter.js";

/**
 * A card's arguments pretty-printed (`after` follows them), invisible characters shown as
 * escapes, so the JSON stays valid for the same value; as given when they are not JSON.
 */
export function prettyArguments(argumentsJson: string, after = ""): string {
  try {
    return revealInvisible(`${JSON.stringify(JSON.parse(argumentsJson), null, 2)}${after}`);
  } catch {
    return revealInvisible(argumentsJson);
  }
}

/** The emoji in front of a decided card's outcome (Slack writes its own `:name:`). */
export const outcomeEmoji: Record<ApprovalOutcome["state"], string> = {
  approved: "✅",
  denied: "❌",
  expired: "⌛",
  skipped: "⏭",
};

/** A decided card's outcome in words ("Approved once by Ana"), the names and the note through `escapeText`. */
export function outcomeWords(outcome: ApprovalOutcome, escapeText: (text: string) => string = (text) => text): string {
  const where = outcome.decidedBy?.where === undefined ? "" : ` ${escapeText(outcome.decidedBy.where)}`;
  const by = outcome.decidedBy ? ` by ${escapeText(outcome.decidedBy.name)}${where}` : "";
  switch (outcome.state) {
    case "approved":
      if (outcome.choice === "always") return `Always allowed${by}`;
      return outcome.choice === "session" ? `Approved for this session${by}` : `Approved once${by}`;
    case "denied":
      return `Denied${by}`;
    case "expired":
      return "Expired: nobody decided in time";
    case "skipped":
      // The note says who closed it (`stopped by Ana`, `chat reset by Ana`).
      return `Skipped: ${outcome.note === undefined ? "a newer message replaced this request" : escapeText(outcome.note)}`;
    default:
      return assertNever(outcome.state, "approval state");
  }
}
