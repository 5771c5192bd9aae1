import { StorageError } from "../../errors/roundtable-error.js";
import type { StoredEvent, WorldEvent } from "../../world/events.js";
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
} from "../../world/records.js";
import type { EventToDeliver, RoutedTurn, SettledEnd, Store } from "../../world/store.js";
import { PrismaSideStores } from "./prisma-side-stores.js";
import { ApprovalQueries } from "./approval-queries.js";
import { HotQueries } from "./hot-queries.js";
import { CombinedStatements } from "./combined-statements.js";
import type { HookEffects, HookOutcomeRecord } from "../../world/policy/event-policy.js";
import { RecentMessages } from "./recent-messages.js";
import { StepQueries } from "./step-queries.js";
import { ToolResultQueries } from "./tool-result-queries.js";
import type { DatabaseClient } from "./database-client.js";
import { conflictOr, isUniqueViolation, missing } from "./prisma-errors.js";
import { omittedRaw } from "../../world/records.js";
import { encodeOptional } from "./json-text.js";
import type { OutboundWriter } from "./postgres-outbound-writer.js";
import { rawSqlOf } from "./prisma-raw-sql.js";
import { type RawSql, sql } from "./raw-sql.js";
import { toChatRecord, toMessageRecord, toStoredEvent, toToolCallRecord, toTurnRecord } from "./record-mappers.js";

/**
 * The Store over Prisma, one class for SQLite and PostgreSQL. Every method is one statement
 * or one transaction; the races the flow cares about (two results for a call, two decisions
 * for an approval, two deliveries of one inbound message) are settled by unique keys and
 * conditional updates in the database, not in memory.
 */
export class PrismaStore extends PrismaSideStores implements Store {
  private readonly approvals: ApprovalQueries;
  private readonly hot: HotQueries;
  /** The hot statements' way to the database (around Prisma's client on SQLite). */
  private readonly raw: RawSql;
  private readonly steps: StepQueries;
  private readonly results: ToolResultQueries;
  private readonly recent: RecentMessages | undefined;
  private readonly outboundWriter: OutboundWriter | undefined;
  /** Writes of two or three statements that PostgreSQL makes one. */
  private readonly combined: CombinedStatements;
  private readonly dialect: "sqlite" | "postgresql";
  /** Chat → world bindings seen (they never change); bounded, emptied when full. */
  private readonly worldsOfChats = new Map<string, string>();

  constructor(
    private readonly db: DatabaseClient,
    private readonly clock: () => Date = () => new Date(),
    options: {
      /** Keep chats' newest messages in memory (SQLite only: see {@link RecentMessages}). */
      recentMessages?: boolean;
      /** The database (default sqlite): how usage reservations are made atomic. */
      dialect?: "sqlite" | "postgresql";
      /** PostgreSQL: where the platform ids of a post are written (closed with the store). */
      outboundWriter?: OutboundWriter;
    } = {},
  ) {
    const raw = rawSqlOf(db);
    super(db, clock, raw, options.dialect);
    this.dialect = options.dialect ?? "sqlite";
    this.approvals = new ApprovalQueries(db, clock);
    this.raw = raw;
    this.outboundWriter = options.outboundWriter;
    this.hot = new HotQueries(this.raw, clock, options.outboundWriter);
    this.steps = new StepQueries(this.raw, clock);
    this.combined = new CombinedStatements(this.raw, clock, this.hot, this.steps, this.dialect);
    this.results = new ToolResultQueries(db, clock);
    this.recent = options.recentMessages
      ? new RecentMessages((chatKey, latest, afterSeq) => this.hot.latestMessages(chatKey, latest, afterSeq))
      : undefined;
  }

  // policy hooks' outcomes: a changed text means the chat's held messages are read afresh
  // (the other side stores' methods are `prisma-side-stores.ts`)

  async recordHookOutcome(record: Omit<HookOutcomeRecord, "createdAt">, effects: HookEffects) {
    const stored = await this.hooks.recordHookOutcome(record, effects);
    if (effects.messageText) this.recent?.forget(record.chatKey);
    return stored;
  }

  // chats

  async ensureChat(key: string, world: string, platform: string): Promise<ChatRecord> {
    const existing = await this.getChat(key);
    if (existing) return existing;
    try {
      return this.remember(
        toChatRecord(await this.db.chat.create({ data: { key, world, platform, createdAt: this.clock() } })),
      );
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Created concurrently: theirs stands.
      return this.remember(toChatRecord(await this.db.chat.findUniqueOrThrow({ where: { key } })));
    }
  }

  async getChat(key: string): Promise<ChatRecord | undefined> {
    const chat = await this.hot.getChat(key);
    return chat ? this.remember(chat) : undefined;
  }

  async chatWorld(key: string): Promise<string | undefined> {
    return this.worldsOfChats.get(key) ?? (await this.getChat(key))?.world;
  }

  private remember(chat: ChatRecord): ChatRecord {
    if (this.worldsOfChats.size >= maxRememberedChats) this.worldsOfChats.clear();
    this.worldsOfChats.set(chat.key, chat.world);
    return chat;
  }

  async setAgentTurns(key: string, count: number): Promise<ChatRecord> {
    const chat = await this.hot.setAgentTurns(key, count);
    if (!chat) throw missing("chat", key);
    return chat;
  }

  async incrementAgentTurns(key: string): Promise<number> {
    const value = await this.hot.incrementAgentTurns(key);
    if (value === undefined) throw missing("chat", key);
    return value;
  }

  async resetSession(key: string): Promise<number> {
    const rows = await this.raw.rows<{ value: number | bigint }>(sql`
      UPDATE "Chat" SET "sessionEpoch" = "sessionEpoch" + 1
      WHERE "key" = ${key} RETURNING "sessionEpoch" AS value`);
    const value = rows[0]?.value;
    if (value === undefined) throw missing("chat", key);
    return Number(value);
  }

  // ingress dedupe

  /** One statement on the hot path: a key that exists changes nothing. */
  async claimInboundKey(key: string): Promise<boolean> {
    const inserted = await this.raw.execute(sql`
      INSERT INTO "InboundKey" ("key", "createdAt") VALUES (${key}, ${this.clock()}) ON CONFLICT ("key") DO NOTHING`);
    return inserted === 1;
  }

  async hasInboundKey(key: string): Promise<boolean> {
    return (await this.db.inboundKey.findUnique({ where: { key }, select: { key: true } })) !== null;
  }

  // messages

  async addMessage(message: NewMessage, options: { resetAgentTurns?: boolean } = {}): Promise<MessageRecord> {
    try {
      if (options.resetAgentTurns) return await this.combined.addMessageResettingTurns(message);
      return await this.hot.addMessage(message);
    } catch (error) {
      throw conflictOr(error, `message ${message.id} already exists`);
    }
  }

  async omitMessageRaw(id: string, reason: string): Promise<void> {
    await this.db.message.updateMany({ where: { id }, data: { raw: encodeOptional(omittedRaw(reason)) } });
  }

  getMessage(id: string): Promise<MessageRecord | undefined> {
    return this.hot.getMessage(id);
  }

  messageFiles(messageId: string): Promise<MessageFile[]> {
    return this.hot.messageFiles(messageId);
  }

  getMessages(ids: readonly string[]): Promise<MessageRecord[]> {
    return this.hot.getMessages(ids);
  }

  async listMessages(
    chatKey: string,
    options: { afterSeq?: number; limit?: number; latest?: number } = {},
  ): Promise<MessageRecord[]> {
    if (options.latest !== undefined) {
      if (this.recent && options.afterSeq === undefined) return this.recent.latest(chatKey, options.latest);
      return this.hot.latestMessages(chatKey, options.latest, options.afterSeq);
    }
    const rows = await this.db.message.findMany({
      where: { chatKey, ...(options.afterSeq === undefined ? {} : { seq: { gt: options.afterSeq } }) },
      orderBy: { seq: "asc" },
      ...(options.limit === undefined ? {} : { take: options.limit }),
    });
    return rows.map(toMessageRecord);
  }

  async findMessageByPlatformId(chatKey: string, platformMessageId: string): Promise<MessageRecord | undefined> {
    const row = await this.db.message.findFirst({ where: { chatKey, platformMessageId }, orderBy: { seq: "asc" } });
    return row ? toMessageRecord(row) : undefined;
  }

  // event log

  appendEvent(chatKey: string, event: WorldEvent): Promise<StoredEvent> {
    return this.hot.appendEvent(chatKey, event);
  }

  getEvent(seq: number): Promise<StoredEvent | undefined> {
    return this.hot.getEvent(seq);
  }

  eventToDeliver(seq: number): Promise<EventToDeliver | undefined> {
    return this.combined.eventToDeliver(seq);
  }

  async listEvents(chatKey: string, options: { afterSeq?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    const rows = await this.db.event.findMany({
      where: { chatKey, ...(options.afterSeq === undefined ? {} : { seq: { gt: options.afterSeq } }) },
      orderBy: { seq: "asc" },
      ...(options.limit === undefined ? {} : { take: options.limit }),
    });
    return rows.map(toStoredEvent);
  }

  listRecentEvents(limit: number): Promise<StoredEvent[]> {
    return this.hot.recentEvents(limit);
  }

  // turns

  async createTurn(
    turn: Omit<TurnRecord, "state" | "step" | "startedAt"> & { state?: TurnState },
    options: { countInChat?: boolean } = {},
  ): Promise<TurnRecord> {
    let created: { turn: TurnRecord; counted: boolean };
    try {
      if (options.countInChat && this.dialect === "postgresql") created = await this.hot.createCountedTurn(turn);
      else created = { turn: await this.hot.createTurn(turn), counted: false };
    } catch (error) {
      throw conflictOr(error, `turn ${turn.id} already exists`);
    }
    if (options.countInChat && this.dialect !== "postgresql") await this.incrementAgentTurns(turn.chatKey);
    else if (options.countInChat && !created.counted) throw missing("chat", turn.chatKey);
    return created.turn;
  }

  getTurn(id: string): Promise<TurnRecord | undefined> {
    return this.hot.getTurn(id);
  }

  stoppedTurns(ids: readonly string[]): Promise<{ id: string; stoppedBy: { id: string; name: string } }[]> {
    return this.hot.stoppedTurns(ids);
  }

  async updateTurn(
    id: string,
    change: Partial<Pick<TurnRecord, "state" | "step" | "endReason" | "endedAt" | "deadlineAt">>,
  ): Promise<TurnRecord> {
    const turn = await this.hot.updateTurn(id, change);
    if (!turn) throw missing("turn", id);
    return turn;
  }

  endTurn(id: string, end: { endReason: string; endedAt: Date }): Promise<TurnRecord | undefined> {
    return this.hot.endTurn(id, end);
  }

  endSettledTurn(id: string, end: { endReason: string; endedAt: Date }, event: WorldEvent): Promise<SettledEnd> {
    return this.combined.endSettledTurn(id, end, event);
  }

  routedTurn(chatKey: string, agent: string, id: string): Promise<RoutedTurn> {
    return this.steps.routedTurn(chatKey, agent, id);
  }

  async listTurns(filter: {
    chatKey?: string;
    chatKeyPrefix?: string;
    agent?: string;
    states?: TurnState[];
  }): Promise<TurnRecord[]> {
    const { chatKey, agent, states, chatKeyPrefix } = filter;
    const state = states?.length === 1 ? states[0] : undefined;
    if (chatKey !== undefined && agent !== undefined && state !== undefined && chatKeyPrefix === undefined) {
      return this.steps.turnsOfAgent(chatKey, agent, state);
    }
    const rows = await this.db.turn.findMany({
      where: {
        ...(filter.chatKey === undefined ? {} : { chatKey: filter.chatKey }),
        ...(filter.chatKeyPrefix === undefined ? {} : { AND: [{ chatKey: { startsWith: filter.chatKeyPrefix } }] }),
        ...(filter.agent === undefined ? {} : { agent: filter.agent }),
        ...(filter.states === undefined ? {} : { state: { in: filter.states } }),
      },
      orderBy: [{ startedAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toTurnRecord);
  }

  async markTurnStopped(id: string, by: { id: string; name: string }): Promise<TurnRecord | undefined> {
    const { count } = await this.db.turn.updateMany({
      where: { id, stoppedById: null, state: { not: "ended" } },
      data: { stoppedById: by.id, stoppedByName: by.name },
    });
    if (count === 0) return undefined;
    const row = await this.db.turn.findUnique({ where: { id } });
    return row ? toTurnRecord(row) : undefined;
  }

  // tool calls and results

  async addModelStep(
    message: NewMessage,
    calls: NewToolCall[],
  ): Promise<{ message: MessageRecord; calls: ToolCallRecord[] }> {
    try {
      return await this.steps.addModelStep(message, calls);
    } catch (error) {
      throw conflictOr(error, `message ${message.id} or one of its tool calls already exists`);
    }
  }

  async getToolCall(id: string): Promise<ToolCallRecord | undefined> {
    const row = await this.db.toolCall.findUnique({ where: { id } });
    return row ? toToolCallRecord(row) : undefined;
  }

  turnHasOpenWork(turnId: string): Promise<boolean> {
    return this.steps.turnHasOpenWork(turnId);
  }

  async listToolCalls(filter: {
    turnId?: string;
    chatKey?: string;
    agent?: string;
    step?: number;
    messageIds?: readonly string[];
    messagesFrom?: Date;
  }): Promise<ToolCallRecord[]> {
    if (filter.messageIds?.length === 0) return [];
    if (
      filter.chatKey !== undefined &&
      filter.agent !== undefined &&
      filter.messageIds !== undefined &&
      filter.messagesFrom !== undefined &&
      filter.turnId === undefined &&
      filter.step === undefined
    ) {
      const wanted = new Set(filter.messageIds);
      const recent = await this.steps.toolCallsOfAgentSince(filter.chatKey, filter.agent, filter.messagesFrom);
      return recent.filter((call) => wanted.has(call.messageId));
    }
    const { turnId, step, messagesFrom: _messagesFrom, ...others } = filter;
    if (turnId !== undefined && Object.values(others).every((value) => value === undefined)) {
      return this.steps.toolCallsOfTurn(turnId, step);
    }
    const rows = await this.db.toolCall.findMany({
      where: {
        ...(filter.messageIds === undefined ? {} : { messageId: { in: [...filter.messageIds] } }),
        ...(filter.messagesFrom === undefined ? {} : { createdAt: { gte: filter.messagesFrom } }),
        ...(filter.turnId === undefined ? {} : { turnId: filter.turnId }),
        ...(filter.chatKey === undefined ? {} : { chatKey: filter.chatKey }),
        ...(filter.agent === undefined ? {} : { agent: filter.agent }),
        ...(filter.step === undefined ? {} : { step: filter.step }),
      },
      orderBy: { seq: "asc" },
    });
    return rows.map(toToolCallRecord);
  }

  setToolCallState(id: string, state: ToolCallState): Promise<void> {
    return this.results.setToolCallState(id, state);
  }

  addToolResult(result: Omit<ToolResultRecord, "createdAt">): Promise<boolean> {
    return this.results.addToolResult(result);
  }

  getToolResult(toolCallId: string): Promise<ToolResultRecord | undefined> {
    return this.results.getToolResult(toolCallId);
  }

  listToolResults(toolCallIds: string[]): Promise<ToolResultRecord[]> {
    return this.results.listToolResults(toolCallIds);
  }

  // approvals and session grants

  createApproval(approval: NewApproval): Promise<ApprovalRecord> {
    return this.approvals.createApproval(approval);
  }

  getApproval(id: string): Promise<ApprovalRecord | undefined> {
    return this.approvals.getApproval(id);
  }

  getApprovalByShortId(chatKey: string, shortId: string): Promise<ApprovalRecord | undefined> {
    return this.approvals.getApprovalByShortId(chatKey, shortId);
  }

  listApprovals(filter: Parameters<ApprovalQueries["listApprovals"]>[0]): Promise<ApprovalRecord[]> {
    const { turnId, states, ...others } = filter;
    const state = states?.length === 1 ? states[0] : undefined;
    if (turnId !== undefined && state !== undefined && Object.values(others).every((value) => value === undefined)) {
      return this.steps.approvalsOfTurn(turnId, state);
    }
    return this.approvals.listApprovals(filter);
  }

  decideApproval(id: string, decision: ApprovalDecision): Promise<DecideResult> {
    return this.approvals.decideApproval(id, decision);
  }

  listApprovalChanges(approvalId: string): Promise<ApprovalChangeRecord[]> {
    return this.approvals.listApprovalChanges(approvalId);
  }

  addSessionGrant(key: SessionGrantKey, grantedBy: string): Promise<void> {
    return this.approvals.addSessionGrant(key, grantedBy);
  }

  hasSessionGrant(key: SessionGrantKey): Promise<boolean> {
    return this.approvals.hasSessionGrant(key);
  }

  // outbound messages

  /** Where world messages landed; recording the same ref again replaces its ids. */
  recordOutbound(record: OutboundRecord, ...more: OutboundRecord[]): Promise<void> {
    return this.hot.recordOutbound([record, ...more]);
  }

  getOutbound(refKind: OutboundRecord["refKind"], refId: string): Promise<OutboundRecord | undefined> {
    return this.hot.getOutbound(refKind, refId);
  }

  getOutbounds(refs: readonly Pick<OutboundRecord, "refKind" | "refId">[]): Promise<OutboundRecord[]> {
    return this.hot.getOutbounds(refs);
  }

  async findOutboundByPlatformId(chatKey: string, platformMessageId: string): Promise<OutboundRecord | undefined> {
    const row = await this.db.outboundMessage.findFirst({
      where: { chatKey, platformMessageId },
      orderBy: { seq: "asc" },
    });
    if (!row) return undefined;
    return this.getOutbound(row.refKind as OutboundRecord["refKind"], row.refId);
  }

  async ping(): Promise<void> {
    try {
      await this.raw.rows(sql`SELECT 1 AS ok`);
    } catch (error) {
      throw new StorageError("storage.failed", "the database does not answer", { cause: error });
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.db.$disconnect(), this.outboundWriter?.close()]);
  }
}

/** Chat bindings kept in memory: enough for every active chat, a few hundred KiB at most. */
const maxRememberedChats = 10_000;
