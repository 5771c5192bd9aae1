import type { ApprovalState, ToolResultKind } from "../../world/approval-types.js";
import type { StoredEvent, WorldEvent } from "../../world/events.js";
import type { ApprovalChoice } from "../../world/inbound.js";
import type { AuthorKind } from "../../world/message.js";
import type {
  ApprovalChangeRecord,
  ApprovalRecord,
  ChatRecord,
  MessageRecord,
  ToolCallRecord,
  ToolCallState,
  ToolResultRecord,
  TurnRecord,
  TurnState,
} from "../../world/records.js";
import type {
  Approval,
  ApprovalChange,
  Chat,
  Event,
  Message,
  ToolCall,
  ToolResult,
  Turn,
} from "./generated/sqlite/index.js";
import { decodeOptional, decodeWithDates } from "./json-text.js";

// Rows to records. String columns hold the records' string unions; the Store is their only writer.

export function toChatRecord(row: Chat): ChatRecord {
  return {
    key: row.key,
    world: row.world,
    platform: row.platform,
    agentTurnsSinceHuman: row.agentTurnsSinceHuman,
    sessionEpoch: row.sessionEpoch,
    createdAt: row.createdAt,
  };
}

export function toMessageRecord(row: Omit<Message, "raw">): MessageRecord {
  const providerFields = decodeOptional(row.providerFields) as Record<string, unknown> | undefined;
  return {
    seq: row.seq,
    id: row.id,
    chatKey: row.chatKey,
    author: {
      kind: row.authorKind as AuthorKind,
      id: row.authorId,
      name: row.authorName,
      ...(row.authorHandle === null ? {} : { handle: row.authorHandle }),
    },
    text: row.text,
    createdAt: row.createdAt,
    ...(row.turnId === null ? {} : { turnId: row.turnId }),
    ...(row.platformMessageId === null ? {} : { platformMessageId: row.platformMessageId }),
    ...(row.replyToId === null ? {} : { replyToId: row.replyToId }),
    ...(row.provider === null ? {} : { provider: row.provider }),
    ...(row.model === null ? {} : { model: row.model }),
    ...(providerFields === undefined ? {} : { providerFields }),
    ...(row.fileCount > 0 ? { fileCount: row.fileCount } : {}),
  };
}

export function toStoredEvent(row: Event): StoredEvent {
  const event = decodeWithDates(row.payload) as WorldEvent;
  return { ...event, seq: row.seq, createdAt: row.createdAt };
}

export function toTurnRecord(row: Turn): TurnRecord {
  return {
    id: row.id,
    chatKey: row.chatKey,
    agent: row.agent,
    state: row.state as TurnState,
    triggerMessageId: row.triggerMessageId,
    startedById: row.startedById,
    step: row.step,
    deadlineAt: row.deadlineAt,
    startedAt: row.startedAt,
    ...(row.endReason === null ? {} : { endReason: row.endReason }),
    ...(row.endedAt === null ? {} : { endedAt: row.endedAt }),
    ...(row.stoppedById === null
      ? {}
      : { stoppedBy: { id: row.stoppedById, name: row.stoppedByName ?? row.stoppedById } }),
  };
}

export function toToolCallRecord(row: ToolCall): ToolCallRecord {
  const providerFields = decodeOptional(row.providerFields) as Record<string, unknown> | undefined;
  return {
    seq: row.seq,
    id: row.id,
    chatKey: row.chatKey,
    agent: row.agent,
    turnId: row.turnId,
    messageId: row.messageId,
    step: row.step,
    providerCallId: row.providerCallId,
    name: row.name,
    argumentsJson: row.arguments,
    state: row.state as ToolCallState,
    createdAt: row.createdAt,
    ...(row.provider === null ? {} : { provider: row.provider }),
    ...(providerFields === undefined ? {} : { providerFields }),
  };
}

export function toToolResultRecord(row: ToolResult): ToolResultRecord {
  return {
    toolCallId: row.toolCallId,
    kind: row.kind as ToolResultKind,
    content: row.content,
    createdAt: row.createdAt,
  };
}

export function toApprovalRecord(row: Approval): ApprovalRecord {
  return {
    id: row.id,
    shortId: row.shortId,
    chatKey: row.chatKey,
    world: row.world,
    agent: row.agent,
    turnId: row.turnId,
    toolCallId: row.toolCallId,
    state: row.state as ApprovalState,
    requestedFor: row.requestedFor,
    reason: row.reason,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
    ...(row.decidedById === null ? {} : { decidedById: row.decidedById }),
    ...(row.decidedByName === null ? {} : { decidedByName: row.decidedByName }),
    ...(row.choice === null ? {} : { choice: row.choice as ApprovalChoice }),
    ...(row.decidedAt === null ? {} : { decidedAt: row.decidedAt }),
    ...(row.editedArgumentsJson === null ? {} : { editedArgumentsJson: row.editedArgumentsJson }),
  };
}

export function toApprovalChangeRecord(row: ApprovalChange): ApprovalChangeRecord {
  return {
    approvalId: row.approvalId,
    state: row.state as ApprovalState,
    actorId: row.actorId,
    actorName: row.actorName,
    createdAt: row.createdAt,
    ...(row.note === null ? {} : { note: row.note }),
  };
}
