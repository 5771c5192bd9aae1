import type { NewMessage, NewToolCall } from "../../world/records.js";
import { encodeOptional } from "./json-text.js";

// Records to rows (the inverse of record-mappers.ts). Optional fields become nulls; JSON is text.

export function messageData(message: NewMessage, now: Date) {
  return {
    id: message.id,
    chatKey: message.chatKey,
    authorKind: message.author.kind,
    authorId: message.author.id,
    authorName: message.author.name,
    authorHandle: message.author.handle ?? null,
    text: message.text,
    platformMessageId: message.platformMessageId ?? null,
    replyToId: message.replyToId ?? null,
    turnId: message.turnId ?? null,
    provider: message.provider ?? null,
    model: message.model ?? null,
    providerFields: encodeOptional(message.providerFields),
    raw: encodeOptional(message.raw),
    createdAt: message.createdAt ?? now,
  };
}

export function toolCallData(call: NewToolCall, now: Date) {
  return {
    id: call.id,
    chatKey: call.chatKey,
    agent: call.agent,
    turnId: call.turnId,
    messageId: call.messageId,
    step: call.step,
    providerCallId: call.providerCallId,
    name: call.name,
    arguments: call.argumentsJson,
    provider: call.provider ?? null,
    providerFields: encodeOptional(call.providerFields),
    state: call.state ?? "pending",
    createdAt: now,
  };
}
