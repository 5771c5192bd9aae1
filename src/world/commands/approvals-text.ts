import { type AccessChannel, accessChannelFor } from "../access/access-channel.js";
import { everyoneEntry, requesterEntry } from "../access/access-list.js";
import { chainHumans, describeWait } from "../turn/index.js";
import { type ChatRef, chatKey, parseChatKey } from "../chat-ref.js";
import { hasMessageLinks } from "../channel/channel-optional.js";
import type { WorldContext } from "../world-context.js";

/** Longest arguments text shown per line of `/approvals` (the card shows them whole). */
const shortArgumentsLength = 80;

/**
 * Who may decide, in words: the world's approvers for the platform (from `approversFor`, so
 * `[requester]` when none are listed), the requester named where the list has `requester`.
 */
export function decidersText(approvers: readonly string[], channel: AccessChannel, requester: string): string {
  if (!channel.capabilities.identifiesClickers) return "you"; // the channel's one local user
  const words = approvers.flatMap((entry) => {
    if (entry === requesterEntry) return requester === "" ? ["who asked"] : [`${requester} (who asked)`];
    if (entry === everyoneEntry) return ["anyone"];
    return [entry];
  });
  return words.join(" or ") || "nobody listed";
}

/**
 * `/approvals`: the chat's pending approvals, oldest first: agent, tool, short arguments, who
 * may decide, when it expires, and a link to its card where the platform has links. Listing
 * closes nothing.
 */
export async function approvalsText(
  context: Pick<WorldContext, "store" | "channels" | "clock">,
  chat: ChatRef,
  approvers: readonly string[],
  wholeChannel = false,
): Promise<string> {
  const { store, clock } = context;
  const key = chatKey(chat);
  const scope = wholeChannel ? { chatKeyPrefix: key } : { chatKey: key };
  const pending = (await store.listApprovals({ ...scope, states: ["pending"] })).sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id),
  );
  if (pending.length === 0) return "No approvals are pending in this chat.";
  const adapter = context.channels.main(chat.platform);
  const now = clock();
  const lines: string[] = [];
  for (const [index, approval] of pending.entries()) {
    const call = await store.getToolCall(approval.toolCallId);
    const turn = await store.getTurn(approval.turnId);
    const trigger = turn ? await store.getMessage(turn.triggerMessageId) : undefined;
    const requester = (trigger ? await chainHumans(context, trigger) : [])[0] ?? approval.requestedFor;
    const left = approval.expiresAt.getTime() - now.getTime();
    const expires =
      left > 0
        ? `expires ${clockTime(approval.expiresAt)} (in ${describeWait(left)})`
        : `expired ${clockTime(approval.expiresAt)}`;
    const card = await store.getOutbound("approval", approval.id);
    const cardId = card?.platformMessageIds[0];
    const link =
      adapter && hasMessageLinks(adapter) && cardId !== undefined
        ? adapter.messageLink(parseChatKey(approval.chatKey), cardId)
        : undefined;
    const parts = [
      `${index + 1}. ${approval.agent} wants ${call?.name ?? "a tool"} \`${shortArguments(call?.argumentsJson ?? "")}\``,
      `id ${approval.shortId}`,
      `${decidersText(approvers, accessChannelFor(context.channels, chat.platform), requester)} may decide`,
      expires,
      ...(link === undefined ? [] : [`[card](${link})`]),
    ];
    lines.push(parts.join(" · "));
  }
  return [`Pending approvals (${pending.length}, oldest first):`, ...lines].join("\n");
}

function shortArguments(argumentsJson: string): string {
  let compact = argumentsJson;
  try {
    compact = JSON.stringify(JSON.parse(argumentsJson));
  } catch {
    // Shown as the model wrote it.
  }
  compact = compact.replace(/\s+/g, " ");
  return compact.length <= shortArgumentsLength ? compact : `${compact.slice(0, shortArgumentsLength - 1)}…`;
}

function clockTime(at: Date): string {
  return `${at.toISOString().slice(11, 16)} UTC`;
}
