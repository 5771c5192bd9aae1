import type { ApprovalInput } from "../../src/world/channel-adapter.js";
import { encodeModalCustomId } from "./custom-id.js";

/** The `custom_id` of a reason or edit modal's one text input. */
export const modalFieldId = "value";

/** Discord's limit for a text input's value. */
const inputLimit = 4000;

/** A press of *Deny with reason…* or *Edit…*: the modal to show, for which card. */
export interface ModalAsk {
  approvalId: string;
  input: ApprovalInput;
  /** The arguments as the card shows them, for *Edit…*. */
  cardArguments: string;
}

/**
 * The answer to the press: a modal (interaction callback type 9) with one paragraph input,
 * holding the arguments as JSON for an edit (docs/approvals.md). Its submission (type 5) carries
 * the card back in its `custom_id`.
 */
export function inputModal(ask: ModalAsk): { type: 9; data: Record<string, unknown> } {
  const reason = ask.input === "reason";
  return {
    type: 9,
    data: {
      custom_id: encodeModalCustomId(ask.approvalId, ask.input),
      title: reason ? "Deny with a reason" : "Edit, then approve",
      components: [
        {
          type: 1,
          components: [
            {
              type: 4,
              custom_id: modalFieldId,
              style: 2,
              label: reason ? "Why not? The agent is told." : "Arguments (JSON)",
              required: true,
              max_length: inputLimit,
              ...(reason ? {} : { value: ask.cardArguments.slice(0, inputLimit) }),
            },
          ],
        },
      ],
    },
  };
}
