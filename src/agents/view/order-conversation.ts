import type { MessageRecord } from "../../world/records.js";
import { triggerOfTurn } from "../../world/ids.js";

/**
 * The chat as it stood for a turn, in conversation order: every message up to the one the
 * turn answers, each agent answer placed right after the message it answers (so an answer
 * stored after a later question still shows as answered, where it belongs), later messages
 * from people left out (they have turns of their own), then this turn's own steps.
 *
 * `messages` are in stored order. An answer whose question is older than `messages` counts
 * as answering something earlier than the turn's trigger.
 */
export function orderConversation(
  messages: readonly MessageRecord[],
  turn: { id: string; triggerMessageId: string },
): MessageRecord[] {
  const present = new Map(messages.map((message) => [message.id, message]));
  const trigger = present.get(turn.triggerMessageId);
  const upTo = trigger?.seq ?? Number.POSITIVE_INFINITY;
  const answers = new Map<string, MessageRecord[]>();
  const roots: MessageRecord[] = [];
  const own: MessageRecord[] = [];
  for (const message of messages) {
    if (message.turnId === turn.id) {
      own.push(message);
      continue;
    }
    const question = message.turnId === undefined ? undefined : triggerOfTurn(message.turnId);
    if (question !== undefined && present.has(question)) {
      const list = answers.get(question) ?? [];
      list.push(message);
      answers.set(question, list);
    } else if (message.seq <= upTo || question !== undefined) {
      // A message from before the trigger, or an answer to a question older than this window.
      roots.push(message);
    }
  }
  const ordered: MessageRecord[] = [];
  const place = (message: MessageRecord): void => {
    ordered.push(message);
    for (const answer of answers.get(message.id) ?? []) place(answer);
  };
  for (const root of roots) place(root);
  return [...ordered, ...own];
}
