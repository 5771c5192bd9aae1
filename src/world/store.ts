import type { AccountingStore } from "./stores/accounting-store.js";
import type { ApprovalVoteStore } from "./stores/approval-vote-store.js";
import type { CardCopyStore } from "./approvals/card-copies.js";
import type { AutonomousRunStore } from "./autonomous/autonomous-run-store.js";
import type { BudgetStore } from "./stores/budget-store.js";
import type { ChannelInstallationStore } from "./stores/installation-store.js";
import type { LoginSessionStore } from "./stores/login-session-store.js";
import type { HookOutcomeStore } from "./policy/event-policy.js";
import type { StoredRuleStore } from "./policy/stored-rules.js";
import type { DeniedCallStore } from "./stores/denials-and-edits.js";
import type { StoredEvent, WorldEvent } from "./events.js";
import type {
  ApprovalChangeRecord,
  ApprovalDecision,
  ApprovalRecord,
  ChatRecord,
  DecideResult,
  MessageFile,
  MessageRecord,
  NewApproval,
  NewMessage,
  NewToolCall,
  OutboundRecord,
  SessionGrantKey,
  ToolCallRecord,
  ToolCallState,
  ToolResultRecord,
  TurnRecord,
  TurnState,
} from "./records.js";

/** `Store.routedTurn`: the turn routing would start, if it exists, and the agent's parked turns. */
export interface RoutedTurn {
  existing: TurnRecord | undefined;
  parked: TurnRecord[];
}

/** `Store.endSettledTurn`: open work left (nothing changed), or the end's event (none: ended already). */
export type SettledEnd = { open: true } | { open: false; stored?: StoredEvent };

/** `Store.eventToDeliver`: the event and what is recorded of it. */
export interface EventToDeliver {
  event: StoredEvent;
  recorded: OutboundRecord[];
}

/**
 * The storage port. Everything the flow needs after a restart goes through it. One
 * implementation over Prisma serves SQLite and PostgreSQL; the same contract suite runs on both.
 * Methods are small and each is atomic.
 */
export interface Store
  extends AccountingStore,
    BudgetStore,
    ChannelInstallationStore,
    LoginSessionStore,
    AutonomousRunStore,
    HookOutcomeStore,
    StoredRuleStore,
    ApprovalVoteStore,
    CardCopyStore,
    DeniedCallStore {
  // chats
  /** Create the chat if new (binding it to `world`); return it either way. */
  ensureChat(key: string, world: string, platform: string): Promise<ChatRecord>;
  getChat(key: string): Promise<ChatRecord | undefined>;
  /**
   * The world a chat is bound to. A binding never changes once made, so this may be answered
   * from memory: the steps that only need the world read no row.
   */
  chatWorld(key: string): Promise<string | undefined>;
  /** Set the agent-turn counter (0 after a human message); returns the chat. */
  setAgentTurns(key: string, count: number): Promise<ChatRecord>;
  /** Add one to the agent-turn counter atomically; returns the new count. */
  incrementAgentTurns(key: string): Promise<number>;
  /** Start a new session epoch (session approvals end). Returns the new epoch. */
  resetSession(key: string): Promise<number>;

  // ingress dedupe
  /** True the first time a key is claimed, false ever after (a unique key in the database). */
  claimInboundKey(key: string): Promise<boolean>;
  /** Whether a key was claimed (a command's "handled" mark is read before acting, claimed after). */
  hasInboundKey(key: string): Promise<boolean>;

  // messages
  /**
   * `resetAgentTurns` (a person's message): the chat's `agentTurnsSinceHuman` back to 0 with it
   * (on PostgreSQL in the same statement, so a message that exists already resets nothing).
   */
  addMessage(message: NewMessage, options?: { resetAgentTurns?: boolean }): Promise<MessageRecord>;
  /**
   * Replace a stored message's platform payload with a marker (`{ omitted: reason }`): a
   * message that starts no turn (its sender is past their rate) keeps no more than its text.
   */
  omitMessageRaw(id: string, reason: string): Promise<void>;
  getMessage(id: string): Promise<MessageRecord | undefined>;
  /** A message's files in the order they came (one statement; ask only when `fileCount` > 0). */
  messageFiles(messageId: string): Promise<MessageFile[]>;
  /** Up to two messages by id at once (one statement); ids with no message are left out. */
  getMessages(ids: readonly string[]): Promise<MessageRecord[]>;
  /**
   * Messages of a chat in the order stored; `afterSeq` and `limit` to page forward, `latest` for
   * only the newest N (still in stored order).
   */
  listMessages(
    chatKey: string,
    options?: { afterSeq?: number; limit?: number; latest?: number },
  ): Promise<MessageRecord[]>;
  findMessageByPlatformId(chatKey: string, platformMessageId: string): Promise<MessageRecord | undefined>;

  // event log
  appendEvent(chatKey: string, event: WorldEvent): Promise<StoredEvent>;
  getEvent(seq: number): Promise<StoredEvent | undefined>;
  /**
   * An event to deliver and what is recorded of it, as `getOutbounds` reads them: its own
   * delivery (`event`, its seq) and, for a message or system event, its message's ids and that
   * message's draft. Undefined when there is no such event. On PostgreSQL one statement.
   */
  eventToDeliver(seq: number): Promise<EventToDeliver | undefined>;
  listEvents(chatKey: string, options?: { afterSeq?: number; limit?: number }): Promise<StoredEvent[]>;
  /** The newest `limit` events of every chat, oldest first (the start-up sweep of lost steps). */
  listRecentEvents(limit: number): Promise<StoredEvent[]>;

  // turns
  /**
   * `countInChat`: the chat's `agentTurnsSinceHuman` goes up by one with it (on PostgreSQL in
   * the same statement: a turn that already exists counts nothing).
   */
  createTurn(
    turn: Omit<TurnRecord, "state" | "step" | "startedAt"> & { state?: TurnState },
    options?: { countInChat?: boolean },
  ): Promise<TurnRecord>;
  getTurn(id: string): Promise<TurnRecord | undefined>;
  /** The turns among `ids` that carry a stop marker, with who stopped them (the stop poll's one read). */
  stoppedTurns(ids: readonly string[]): Promise<{ id: string; stoppedBy: { id: string; name: string } }[]>;
  updateTurn(
    id: string,
    change: Partial<Pick<TurnRecord, "state" | "step" | "endReason" | "endedAt" | "deadlineAt">>,
  ): Promise<TurnRecord>;
  /**
   * End a turn that is not ended yet, in one statement: the ended turn, or undefined when it was
   * already ended (by another process's `/stop`, say) or is unknown. Whoever gets the turn back
   * is the one who ended it.
   */
  endTurn(id: string, end: { endReason: string; endedAt: Date }): Promise<TurnRecord | undefined>;
  /**
   * A turn with nothing open (no call without its result, no pending approval) ended as
   * {@link endTurn} ends it, and `event` appended when this call ended it: on PostgreSQL one
   * statement. `open`: the turn has open work, and nothing changed; else `stored` is the event,
   * undefined when the turn was already ended or is unknown.
   */
  endSettledTurn(id: string, end: { endReason: string; endedAt: Date }, event: WorldEvent): Promise<SettledEnd>;
  /**
   * What routing a message to an agent reads, in one statement: the turn `id` (the agent's in
   * the chat), if it exists, and the agent's parked turns in the chat, oldest first (the turn
   * itself among them when it is parked).
   */
  routedTurn(chatKey: string, agent: string, id: string): Promise<RoutedTurn>;
  /** Turns, oldest first; `chatKeyPrefix` takes a channel's chat and its threads' chats at once. */
  listTurns(filter: {
    chatKey?: string;
    chatKeyPrefix?: string;
    agent?: string;
    states?: TurnState[];
  }): Promise<TurnRecord[]>;
  /**
   * Record that `by` stopped an unfinished turn (the durable stop marker). Returns the turn when
   * this call set the marker; undefined when the turn is ended, already stopped, or unknown.
   */
  markTurnStopped(id: string, by: { id: string; name: string }): Promise<TurnRecord | undefined>;

  // tool calls and results
  /** Store an agent's response message and its tool calls in one transaction. */
  addModelStep(message: NewMessage, calls: NewToolCall[]): Promise<{ message: MessageRecord; calls: ToolCallRecord[] }>;
  getToolCall(id: string): Promise<ToolCallRecord | undefined>;
  /** Whether the turn has a call without its result (not `done`) or a pending approval. */
  turnHasOpenWork(turnId: string): Promise<boolean>;
  listToolCalls(filter: {
    turnId?: string;
    chatKey?: string;
    agent?: string;
    step?: number;
    /** Only the calls carried by these messages (a request view reads those it shows). */
    messageIds?: readonly string[];
    /**
     * With `messageIds`: none of those messages is older than this. A call is stored with its
     * message, so the store may look only at calls stored since (one statement of a fixed
     * shape, however many ids).
     */
    messagesFrom?: Date;
  }): Promise<ToolCallRecord[]>;
  setToolCallState(id: string, state: ToolCallState): Promise<void>;
  /**
   * Store the one result of a call and mark the call done, atomically. False (and nothing
   * changes) when the call already has a result: never two results.
   */
  addToolResult(result: Omit<ToolResultRecord, "createdAt">): Promise<boolean>;
  getToolResult(toolCallId: string): Promise<ToolResultRecord | undefined>;
  listToolResults(toolCallIds: string[]): Promise<ToolResultRecord[]>;

  // approvals
  createApproval(approval: NewApproval): Promise<ApprovalRecord>;
  getApproval(id: string): Promise<ApprovalRecord | undefined>;
  getApprovalByShortId(chatKey: string, shortId: string): Promise<ApprovalRecord | undefined>;
  listApprovals(filter: {
    chatKey?: string;
    /** A channel's chat and its threads' chats at once (chat keys end in the thread). */
    chatKeyPrefix?: string;
    turnId?: string;
    states?: ApprovalRecord["state"][];
  }): Promise<ApprovalRecord[]>;
  /** First decision wins: only a pending approval changes; the change is recorded with who and when. */
  decideApproval(id: string, decision: ApprovalDecision): Promise<DecideResult>;
  listApprovalChanges(approvalId: string): Promise<ApprovalChangeRecord[]>;

  // session grants (approve for session)
  addSessionGrant(key: SessionGrantKey, grantedBy: string): Promise<void>;
  hasSessionGrant(key: SessionGrantKey): Promise<boolean>;

  // outbound messages (for edits)
  /**
   * Where world messages landed; recording a ref again replaces its ids, and a record with no
   * ids forgets the ref. Several records are written in one transaction (all or none).
   */
  recordOutbound(record: OutboundRecord, ...more: OutboundRecord[]): Promise<void>;
  getOutbound(refKind: OutboundRecord["refKind"], refId: string): Promise<OutboundRecord | undefined>;
  /** The records of up to three refs at once (one statement); refs with none are left out. */
  getOutbounds(refs: readonly Pick<OutboundRecord, "refKind" | "refId">[]): Promise<OutboundRecord[]>;
  findOutboundByPlatformId(chatKey: string, platformMessageId: string): Promise<OutboundRecord | undefined>;

  /** Reachability for `/readyz` and `roundtable check`. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
