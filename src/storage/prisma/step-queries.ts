import type {
  ApprovalRecord,
  MessageRecord,
  NewMessage,
  NewToolCall,
  ToolCallRecord,
  TurnRecord,
  TurnState,
} from "../../world/records.js";
import type { Approval, Message, ToolCall, Turn } from "./generated/sqlite/index.js";
import type { RoutedTurn } from "../../world/store.js";
import { type RawSql, sql } from "./raw-sql.js";
import { messageData, toolCallData } from "./record-data.js";
import { toApprovalRecord, toMessageRecord, toToolCallRecord, toTurnRecord } from "./record-mappers.js";

/**
 * The rest of a turn step's statements in raw SQL (see `HotQueries` for why): storing an
 * answer with its calls, and the lists a step reads in their common shapes.
 * The Store keeps the model API for the other shapes of those lists.
 */
export class StepQueries {
  constructor(
    private readonly raw: RawSql,
    private readonly clock: () => Date,
  ) {}

  /** The answer and its calls in one batched transaction; a unique violation passes through. */
  async addModelStep(
    message: NewMessage,
    calls: NewToolCall[],
  ): Promise<{ message: MessageRecord; calls: ToolCallRecord[] }> {
    const now = this.clock();
    const data = messageData(message, now);
    const [stored, ...storedCalls] = await this.raw.batch([
      sql`
        INSERT INTO "Message" ("id", "chatKey", "authorKind", "authorId", "authorName", "authorHandle", "text",
          "platformMessageId", "replyToId", "turnId", "provider", "model", "providerFields", "raw", "createdAt")
        VALUES (${data.id}, ${data.chatKey}, ${data.authorKind}, ${data.authorId}, ${data.authorName},
          ${data.authorHandle}, ${data.text}, ${data.platformMessageId}, ${data.replyToId}, ${data.turnId},
          ${data.provider}, ${data.model}, ${data.providerFields}, ${data.raw}, ${data.createdAt})
        RETURNING "seq", "id", "chatKey", "authorKind", "authorId", "authorName", "authorHandle", "text",
          "platformMessageId", "replyToId", "turnId", "provider", "model", "providerFields", "fileCount", "createdAt"`,
      ...calls.map((call) => {
        const row = toolCallData(call, now);
        return sql`
          INSERT INTO "ToolCall" ("id", "chatKey", "agent", "turnId", "messageId", "step", "providerCallId", "name",
            "arguments", "provider", "providerFields", "state", "createdAt")
          VALUES (${row.id}, ${row.chatKey}, ${row.agent}, ${row.turnId}, ${row.messageId}, ${row.step},
            ${row.providerCallId}, ${row.name}, ${row.arguments}, ${row.provider}, ${row.providerFields},
            ${row.state}, ${row.createdAt})
          RETURNING "seq", "id", "chatKey", "agent", "turnId", "messageId", "step", "providerCallId", "name",
            "arguments", "provider", "providerFields", "state", "createdAt"`;
      }),
    ]);
    return {
      message: toMessageRecord(first(stored as Omit<Message, "raw">[], "message insert")),
      calls: storedCalls.map((rows) => toToolCallRecord(first(rows as ToolCall[], "tool call insert"))),
    };
  }

  /** The calls of a turn (of one step of it), oldest first. */
  async toolCallsOfTurn(turnId: string, step?: number): Promise<ToolCallRecord[]> {
    const rows =
      step === undefined
        ? await this.raw.rows<ToolCall>(sql`
            SELECT "seq", "id", "chatKey", "agent", "turnId", "messageId", "step", "providerCallId", "name",
              "arguments", "provider", "providerFields", "state", "createdAt"
            FROM "ToolCall" WHERE "turnId" = ${turnId} ORDER BY "seq" ASC`)
        : await this.raw.rows<ToolCall>(sql`
            SELECT "seq", "id", "chatKey", "agent", "turnId", "messageId", "step", "providerCallId", "name",
              "arguments", "provider", "providerFields", "state", "createdAt"
            FROM "ToolCall" WHERE "turnId" = ${turnId} AND "step" = ${step} ORDER BY "seq" ASC`);
    return rows.map(toToolCallRecord);
  }

  /** An agent's calls in a chat stored at or after `since`, oldest first. */
  async toolCallsOfAgentSince(chatKey: string, agent: string, since: Date): Promise<ToolCallRecord[]> {
    const rows = await this.raw.rows<ToolCall>(sql`
      SELECT "seq", "id", "chatKey", "agent", "turnId", "messageId", "step", "providerCallId", "name",
        "arguments", "provider", "providerFields", "state", "createdAt"
      FROM "ToolCall" WHERE "chatKey" = ${chatKey} AND "agent" = ${agent} AND "createdAt" >= ${since}
      ORDER BY "seq" ASC`);
    return rows.map(toToolCallRecord);
  }

  /** Whether a turn has a call without its result or a pending approval: one statement. */
  async turnHasOpenWork(turnId: string): Promise<boolean> {
    const rows = await this.raw.rows<{ open: number | bigint }>(sql`
      SELECT CASE WHEN EXISTS (SELECT 1 FROM "ToolCall" WHERE "turnId" = ${turnId} AND "state" <> 'done')
        OR EXISTS (SELECT 1 FROM "Approval" WHERE "turnId" = ${turnId} AND "state" = 'pending')
        THEN 1 ELSE 0 END AS open`);
    return Number(rows[0]?.open ?? 0) === 1;
  }

  /** A turn's approvals in one state, oldest first. */
  async approvalsOfTurn(turnId: string, state: ApprovalRecord["state"]): Promise<ApprovalRecord[]> {
    const rows = await this.raw.rows<Approval>(sql`
      SELECT "id", "shortId", "chatKey", "world", "agent", "turnId", "toolCallId", "state", "requestedFor", "reason",
        "expiresAt", "createdAt", "decidedById", "decidedByName", "choice", "decidedAt"
      FROM "Approval" WHERE "turnId" = ${turnId} AND "state" = ${state} ORDER BY "createdAt" ASC, "id" ASC`);
    return rows.map(toApprovalRecord);
  }

  /**
   * `Store.routedTurn`: the turn `id` of an agent in a chat, if it exists, and that agent's
   * parked turns there (oldest first), in one statement.
   */
  async routedTurn(chatKey: string, agent: string, id: string): Promise<RoutedTurn> {
    const rows = await this.raw.rows<Turn>(sql`
      SELECT "id", "chatKey", "agent", "state", "triggerMessageId", "startedById", "step", "deadlineAt",
        "endReason", "startedAt", "endedAt", "stoppedById", "stoppedByName"
      FROM "Turn" WHERE "chatKey" = ${chatKey} AND "agent" = ${agent} AND ("id" = ${id} OR "state" = 'parked')
      ORDER BY "startedAt" ASC, "id" ASC`);
    const turns = rows.map(toTurnRecord);
    return {
      existing: turns.find((turn) => turn.id === id),
      parked: turns.filter((turn) => turn.state === "parked"),
    };
  }

  /** An agent's turns in a chat in one state, oldest first. */
  async turnsOfAgent(chatKey: string, agent: string, state: TurnState): Promise<TurnRecord[]> {
    const rows = await this.raw.rows<Turn>(sql`
      SELECT "id", "chatKey", "agent", "state", "triggerMessageId", "startedById", "step", "deadlineAt",
        "endReason", "startedAt", "endedAt", "stoppedById", "stoppedByName"
      FROM "Turn" WHERE "chatKey" = ${chatKey} AND "agent" = ${agent} AND "state" = ${state}
      ORDER BY "startedAt" ASC, "id" ASC`);
    return rows.map(toTurnRecord);
  }
}

function first<T>(rows: T[], what: string): T {
  const row = rows[0];
  // Programming error: used only for statements that always answer a row (RETURNING, COUNT).
  if (!row) throw new Error(`${what} returned no row`);
  return row;
}
