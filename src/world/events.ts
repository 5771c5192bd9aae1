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
  | {
      type: "approval-requested";
      chat: ChatRef;
      card: ApprovalCard;
      /**
       * A copy of the card outside its chat (an approver's DM, the approvals chat: `src/world/approvals/`);
       * `fallback` is the card its chat gets when no copy can be shown (`route: dm`); `primary`
       * marks the one copy that stands for the approval when its chat has no card (metrics, spans).
       */
      copy?: { kind: "dm" | "channel"; fallback?: ApprovalCard; primary?: true };
    }
  | {
      type: "approval-decided";
      chat: ChatRef;
      outcome: ApprovalOutcome;
      copy?: { kind: "dm" | "channel"; primary?: true };
    }
  /**
   * A pending card drawn again, its buttons kept: a quorum's progress, an escalation
   * (src/world/turn/quorum.ts); in its chat and, routed, on every open copy (`copy` set).
   */
  | { type: "approval-updated"; chat: ChatRef; card: ApprovalCard; copy?: { kind: "dm" | "channel" } }
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

/** Whether an approval event stands for its approval (not one of its card's further copies): counted once. */
export function standsForApproval(
  event: Extract<WorldEvent, { type: "approval-requested" | "approval-decided" }>,
): boolean {
  return event.copy === undefined || event.copy.primary === true;
}

/** A persisted event with its position in the log. */
export type StoredEvent = WorldEvent & { seq: number; createdAt: Date };
