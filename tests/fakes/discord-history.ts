import type { RestContext, RestReply, RestRequest } from "./discord-rest.js";
import type { StoredDiscordMessage } from "./discord-state.js";

/** How long Discord remembers a nonce for `enforce_nonce` ("the past few minutes"). */
const nonceWindowMs = 5 * 60_000;

/**
 * `enforce_nonce: true` with a nonce: the message the same author created in the same channel
 * with the same nonce in the last few minutes, which Discord answers with instead of creating
 * another. Without `enforce_nonce` the nonce is only echoed, as on Discord.
 */
export function messageWithNonce(
  context: RestContext,
  channelId: string,
  request: RestRequest,
): StoredDiscordMessage | undefined {
  const nonce = request.body.nonce;
  if (request.body.enforce_nonce !== true || (typeof nonce !== "string" && typeof nonce !== "number")) return undefined;
  const since = Date.now() - nonceWindowMs;
  return [...context.state.messages.values()].find(
    (message) =>
      message.channel_id === channelId &&
      message.sentByToken === request.token &&
      message.nonce === String(nonce) &&
      Date.parse(message.timestamp) >= since,
  );
}

/** The nonce to store with a new message, if the request carried one. */
export function nonceOf(request: RestRequest): { nonce?: string } {
  const nonce = request.body.nonce;
  return typeof nonce === "string" || typeof nonce === "number" ? { nonce: String(nonce) } : {};
}

/**
 * `GET /channels/{id}/messages` with `limit` (1 to 100, default 50), newest first, as Discord
 * answers: without `after`, the channel's newest messages; with `after` (a snowflake), the
 * messages that come right after it (the oldest ones newer than `after`, not the newest).
 */
export function listMessages(request: RestRequest, channelId: string, context: RestContext): RestReply {
  if (!context.state.channels.has(channelId)) return { status: 404, body: { code: 10003, message: "Unknown Channel" } };
  const limit = Number(request.query.get("limit") ?? 50);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return { status: 400, body: { code: 50035, message: "Invalid Form Body: limit" } };
  const afterText = request.query.get("after");
  const after = BigInt(afterText ?? "0");
  const ascending = context.state
    .messagesIn(channelId)
    .filter((message) => BigInt(message.id) > after)
    .sort((left, right) => (BigInt(left.id) > BigInt(right.id) ? 1 : -1));
  const page = afterText === null ? ascending.slice(-limit) : ascending.slice(0, limit);
  return { status: 200, body: page.reverse().map((message) => context.state.toPayload(message)) };
}
