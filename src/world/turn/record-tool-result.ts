import type { ToolCallRecord } from "../records.js";
import type { ToolResultKind } from "./approvals/approval-types.js";
import { parseChatKey } from "../chat-ref.js";
import type { Outbox } from "../outbox.js";
import type { WorldContext } from "../world-context.js";

/** Longest tool result text kept for the model. */
const maxToolResultLength = 20_000;

/**
 * The one way a tool call gets its result. Synthetic kinds are written `kind: detail`, an MCP
 * error `error: text`, a real result as the tool's text. Returns false (changing nothing) when
 * the call already had a result: never two results.
 */
export async function recordToolResult(
  context: WorldContext,
  outbox: Outbox,
  call: ToolCallRecord,
  kind: ToolResultKind,
  text: string,
  options: ResultOptions = {},
): Promise<boolean> {
  const body = options.verbatim === true ? text : formatResult(kind, text);
  const content = options.note === undefined ? body : `${options.note}\n${body}`;
  const added = await context.store.addToolResult({ toolCallId: call.id, kind, content });
  if (!added) {
    context.logger.info({ toolCallId: call.id, kind }, "tool call already had a result; this one is dropped");
    return false;
  }
  await outbox.publish(call.chatKey, {
    type: "tool-result",
    chat: parseChatKey(call.chatKey),
    agent: call.agent,
    turnId: call.turnId,
    toolCallId: call.id,
    tool: call.name,
    kind,
    preview: content.slice(0, 200),
  });
  return true;
}

/** How a result's text is written beyond `kind: detail`. */
export interface ResultOptions {
  /** The text is the whole result, with no `kind:` in front (a person's denial, docs/approvals.md). */
  verbatim?: boolean;
  /** A line the result starts with (an approver's edit: `note: … edited the arguments …`). */
  note?: string;
}

function formatResult(kind: ToolResultKind, text: string): string {
  const body = kind === "ok" ? text : `${kind}: ${text}`;
  if (body.length <= maxToolResultLength) return body;
  const half = Math.floor(maxToolResultLength / 2);
  return `${body.slice(0, half)}\n…[${body.length - 2 * half} characters cut]…\n${body.slice(-half)}`;
}
