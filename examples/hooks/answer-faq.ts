// Answer frequent questions without a model call (docs/hooks.md): `respond` posts the answer as
// the world's default agent, and no agent's turn starts.
import type { OnEvent } from "roundtable/hooks";

const answers: { question: RegExp; answer: string }[] = [
  { question: /\bopening hours\b/i, answer: "We are open Monday to Friday, 9:00 to 17:00 (CET)." },
  { question: /\breset (my )?password\b/i, answer: "Use https://example.com/reset; the link is valid for an hour." },
];

export const onEvent: OnEvent = (event, respond) => {
  if (event.type !== "message" || event.createdBy !== "user") return undefined;
  const found = answers.find((entry) => entry.question.test(event.message.text));
  if (found) respond({ text: found.answer });
  return undefined;
};
