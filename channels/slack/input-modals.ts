import { z } from "zod";
import type { ApprovalInput, ChatRef } from "../../src/world/channel-adapter.js";
import type { ModalAsk } from "./parse.js";

/** The `callback_id` of the reason and edit modals. */
export const reasonModalId = "roundtable_reason";
export const editModalId = "roundtable_edit";

/** The input's block and action ids (the submission is read from them). */
const blockId = "roundtable_input";
const actionId = "value";

/** Slack's limit for a plain-text input's initial value and a text input's length. */
const inputLimit = 3000;

/** What a modal carries from the press to its submission: the card and the chat. */
const metadataSchema = z.object({
  approvalId: z.string().min(1).max(200),
  workspace: z.string().optional(),
  channel: z.string().min(1),
  thread: z.string().optional(),
});

/**
 * The modal *Deny with reason…* or *Edit…* opens (docs/approvals.md): one text input (the
 * arguments as JSON for an edit), and the card and chat in `private_metadata`.
 */
export function inputModal(ask: ModalAsk): Record<string, unknown> {
  const reason = ask.input === "reason";
  const metadata = {
    approvalId: ask.approvalId,
    channel: ask.chat.channel,
    ...(ask.chat.workspace === undefined ? {} : { workspace: ask.chat.workspace }),
    ...(ask.chat.thread === undefined ? {} : { thread: ask.chat.thread }),
  };
  return {
    type: "modal",
    callback_id: reason ? reasonModalId : editModalId,
    private_metadata: JSON.stringify(metadata),
    title: { type: "plain_text", text: reason ? "Deny with a reason" : "Edit, then approve" },
    submit: { type: "plain_text", text: reason ? "Deny" : "Approve edited" },
    close: { type: "plain_text", text: "Cancel" },
    blocks: [
      {
        type: "input",
        block_id: blockId,
        label: { type: "plain_text", text: reason ? "Why not? The agent is told." : "Arguments (JSON)" },
        element: {
          type: "plain_text_input",
          action_id: actionId,
          multiline: true,
          max_length: inputLimit,
          ...(reason ? {} : { initial_value: ask.cardArguments.slice(0, inputLimit) }),
        },
      },
    ],
  };
}

/** A modal's submission: which input, the card, the chat, who and what they typed. */
export interface ModalSubmission {
  input: ApprovalInput;
  approvalId: string;
  chat: ChatRef;
  user: { id: string; name: string; username?: string };
  text: string;
  /** The submission's id (the view's), for dedupe of duplicate delivery. */
  eventId: string;
}

const submissionSchema = z
  .object({
    type: z.literal("view_submission"),
    user: z.object({ id: z.string().min(1), name: z.string().optional(), username: z.string().optional() }).loose(),
    view: z
      .object({
        id: z.string(),
        callback_id: z.string(),
        private_metadata: z.string(),
        state: z.object({
          values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().nullish() }).loose())),
        }),
      })
      .loose(),
  })
  .loose();

/** A `view_submission` of one of our modals, or why it is not one. */
export function parseSubmission(
  body: unknown,
  teamId: string | undefined,
): { ok: true; submission: ModalSubmission } | { ok: false; reason: string } {
  const parsed = submissionSchema.safeParse(body);
  if (!parsed.success) return { ok: false, reason: "malformed view_submission payload" };
  const { view, user } = parsed.data;
  const input = view.callback_id === reasonModalId ? "reason" : view.callback_id === editModalId ? "edit" : undefined;
  if (input === undefined) return { ok: false, reason: `not our modal: ${view.callback_id}` };
  let metadata: z.infer<typeof metadataSchema>;
  try {
    metadata = metadataSchema.parse(JSON.parse(view.private_metadata));
  } catch {
    return { ok: false, reason: "modal metadata not ours" };
  }
  const workspace = metadata.workspace ?? teamId;
  const chat: ChatRef = {
    platform: "slack",
    ...(workspace === undefined ? {} : { workspace }),
    channel: metadata.channel,
    ...(metadata.thread === undefined ? {} : { thread: metadata.thread }),
  };
  const text = view.state.values[blockId]?.[actionId]?.value ?? "";
  return {
    ok: true,
    submission: {
      input,
      approvalId: metadata.approvalId,
      chat,
      user: {
        id: user.id,
        name: user.name ?? user.username ?? user.id,
        ...(user.username === undefined ? {} : { username: user.username }),
      },
      text,
      eventId: view.id,
    },
  };
}

/** The answer that keeps the modal open with the refusal under the input (seen only by its user). */
export function modalError(text: string): { response_action: "errors"; errors: Record<string, string> } {
  return { response_action: "errors", errors: { [blockId]: text.slice(0, 2000) } };
}
