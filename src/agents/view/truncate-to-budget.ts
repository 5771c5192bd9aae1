import type { ViewMessage } from "../../providers/model-provider.js";
import { estimateMessageTokens, estimateTextTokens } from "./estimate-tokens.js";
import { shortenMiddle } from "./shorten-text.js";
import type { ViewCut } from "./view-cut.js";

/** A message of the view and the index of the stored message it stands for. */
interface Slot {
  message: ViewMessage;
  source: number;
  /** A tool result (kept as a tool message or masked into text). */
  isResult: boolean;
  /** `estimateMessageTokens(message)`, kept up to date when the message is shortened. */
  tokens: number;
}

/** What is cut or kept together: a user message, or an assistant message with its results. */
type Unit = Slot[];

/** An old tool result longer than this share of the budget counts as over-long. */
const longResultShare = 16;
/** Nothing is shortened below this many tokens. */
const floorTokens = 64;

function droppedNotice(count: number): string {
  return `[${count} earlier message${count === 1 ? " was" : "s were"} left out to fit the model's context budget]`;
}

/**
 * Fits the messages into `availableTokens`, cutting the oldest material first:
 * 1. over-long tool results before the current step are shortened in the middle, oldest first;
 * 2. whole units before the current step are dropped, oldest first (a call never leaves
 *    without its results: they are one unit), and a one-line notice says so;
 * 3. within the current step (from the last user message on), tool results are shortened
 *    first, then the other texts, oldest first;
 * 4. if it still does not fit, an `over-budget` cut says so.
 * Every change is recorded as a cut naming the input indexes.
 */
export function truncateToBudget(
  messages: readonly ViewMessage[],
  resultIndexes: ReadonlySet<number>,
  availableTokens: number,
): { messages: ViewMessage[]; cuts: ViewCut[] } {
  const units = groupUnits(
    messages.map((message, source) => ({
      message,
      source,
      isResult: resultIndexes.has(source),
      tokens: estimateMessageTokens(message),
    })),
  );
  const cuts: ViewCut[] = [];
  if (units.length === 0) return { messages: [], cuts };
  const lastUserUnit = units.findLastIndex((unit) => unit[0]?.message.role === "user" && !unit[0].isResult);
  const protectedFrom = Math.min(lastUserUnit === -1 ? units.length - 1 : lastUserUnit, units.length - 1);
  const dropped: Slot[] = [];
  let kept = units;
  // A running sum, not a sum taken again at every check: a view of hundreds of messages would
  // otherwise cost a number of estimates that grows with the square of its length.
  let keptTokens = sumTokens(units.flat());
  const total = () =>
    keptTokens +
    (dropped.length === 0 ? 0 : estimateMessageTokens({ role: "user", text: droppedNotice(dropped.length) }));
  const over = () => total() - availableTokens;

  const shorten = (slot: Slot, capTokens: number, reason: string) => {
    const excess = over();
    if (excess <= 0) return;
    const textTokens = estimateTextTokens(slot.message.text);
    const target = Math.max(capTokens, textTokens - excess);
    if (textTokens <= target) return;
    const before = slot.tokens;
    slot.message = { ...slot.message, text: shortenMiddle(slot.message.text, target) };
    slot.tokens = estimateMessageTokens(slot.message);
    keptTokens += slot.tokens - before;
    cuts.push({ action: "shortened", messages: [slot.source], reason, tokensBefore: before, tokensAfter: slot.tokens });
  };

  // 1. Over-long old tool results.
  const longCap = Math.max(floorTokens, Math.floor(availableTokens / longResultShare));
  for (const unit of units.slice(0, protectedFrom)) {
    for (const slot of unit) {
      if (over() <= 0) break;
      if (slot.isResult && estimateTextTokens(slot.message.text) > longCap) {
        shorten(slot, longCap, "an old tool result longer than the budget allows");
      }
    }
  }

  // 2. Whole old units, oldest first.
  let firstKept = 0;
  while (over() > 0 && firstKept < protectedFrom) {
    const unit = units[firstKept] ?? [];
    dropped.push(...unit);
    keptTokens -= sumTokens(unit);
    firstKept += 1;
    kept = units.slice(firstKept);
  }
  if (dropped.length > 0) {
    // A message shortened in step 1 and then dropped anyway is reported as dropped only.
    const droppedSources = new Set(dropped.map((slot) => slot.source));
    cuts.splice(0, cuts.length, ...cuts.filter((cut) => !cut.messages.every((source) => droppedSources.has(source))));
    cuts.push({
      action: "dropped",
      messages: dropped.map((slot) => slot.source),
      reason: "the oldest messages do not fit the context budget",
      tokensBefore: sumTokens(dropped),
      tokensAfter: estimateMessageTokens({ role: "user", text: droppedNotice(dropped.length) }),
    });
  }

  // 3. The current step: tool results (the bulk, as a rule) before what people wrote, each
  //    group oldest first, so the last unit is cut last.
  const current = kept.flat();
  const order = [...current.filter((slot) => slot.isResult), ...current.filter((slot) => !slot.isResult)];
  for (const slot of order) {
    if (over() <= 0) break;
    shorten(slot, floorTokens, "the current step alone exceeds the context budget");
  }

  const result: ViewMessage[] = [
    ...(dropped.length === 0 ? [] : [{ role: "user" as const, text: droppedNotice(dropped.length) }]),
    ...kept.flat().map((slot) => slot.message),
  ];
  if (over() > 0) {
    cuts.push({
      action: "over-budget",
      messages: [],
      reason: `the view needs ${total()} tokens for messages, ${availableTokens} are available`,
      tokensBefore: total(),
      tokensAfter: availableTokens,
    });
  }
  return { messages: result, cuts };
}

function sumTokens(slots: readonly Slot[]): number {
  return slots.reduce((sum, slot) => sum + slot.tokens, 0);
}

function groupUnits(slots: Slot[]): Unit[] {
  const units: Unit[] = [];
  for (const slot of slots) {
    const current = units.at(-1);
    // Results stay with their call, masked into text or not.
    if (slot.isResult && current && current[0]?.message.role === "assistant") current.push(slot);
    else units.push([slot]);
  }
  return units;
}
