import type { ApprovalCard, ApprovalOutcome, ToolResultKind } from "./approval-types.js";
import type { ChatRef } from "./chat-ref.js";
import type { WorldMessage } from "./message.js";

/** Why a turn ended. */
export type TurnEndReason =
  | "answered"
  | "max-steps"
  | "deadline"
  | "max-tool-calls"
  | "repeat-guard"
  | "provider-error"
  | "superseded"
  | "reset"
  | "budget"
  | "denied"
  | "interrupted"
  | "stopped";

/**
 * Everything that happens in a world, one union tagged by `type`. Persisted in the event log
 * before it is emitted (except `stream` deltas, which are transient).
 */
export type WorldEvent =
  | {
      type: "message";
      chat: ChatRef;
      message: WorldMessage;
      /**
       * Published by a turn step run again from its stored answer: the earlier run's stream may
       * have posted the message without its id being recorded, so its delivery looks for it
       * (`PostKey.mayExist`) even on its first attempt.
       */
      rerun?: true;
    }
  | { type: "system"; chat: ChatRef; level: "notice" | "error"; message: WorldMessage }
  | {
      type: "stream";
      chat: ChatRef;
      streamId: string;
      agent: string;
      /** `start` after deltas: the model call was sent again, the text so far is void. */
      phase: "start" | "delta" | "end";
      text: string;
    }
  | {
      type: "tool-calls";
      chat: ChatRef;
      agent: string;
      turnId: string;
      calls: { id: string; name: string; argumentsJson: string }[];
    }
  | { type: "approval-requested"; chat: ChatRef; card: ApprovalCard }
  | { type: "approval-decided"; chat: ChatRef; outcome: ApprovalOutcome }
  /** A pending card drawn again, its buttons kept: a quorum's progress, an escalation (src/world/turn/quorum.ts). */
  | { type: "approval-updated"; chat: ChatRef; card: ApprovalCard }
  | {
      type: "tool-result";
      chat: ChatRef;
      agent: string;
      turnId: string;
      toolCallId: string;
      tool: string;
      kind: ToolResultKind;
      preview: string;
    }
  | {
      type: "turn-ended";
      chat: ChatRef;
      agent: string;
      turnId: string;
      reason: TurnEndReason;
      /** When the turn started (absent in events stored before it was carried). */
      startedAt?: Date;
    };

/** A persisted event with its position in the log. */
export type StoredEvent = WorldEvent & { seq: number; createdAt: Date };
