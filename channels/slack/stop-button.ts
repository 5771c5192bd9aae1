import { stopActionId } from "./action-value.js";
import type { Block } from "./api.js";

/** Longest text a section block holds; a longer part being written goes without a Stop button. */
const sectionTextLimit = 3000;

/** The part of an answer being written as a section with a Stop button under it. */
export function stopBlocks(text: string, agent: string): Block[] | undefined {
  if (text.length > sectionTextLimit) return undefined;
  return [
    { type: "section", text: { type: "mrkdwn", text } },
    {
      type: "actions",
      elements: [
        {
          type: "button",
          action_id: stopActionId,
          text: { type: "plain_text", text: ":black_square_for_stop: Stop", emoji: true },
          value: agent,
        },
      ],
    },
  ];
}
