import type { WorldEvent } from "../../world/events.js";
import type { MessageRecord, NewMessage, OutboundRecord } from "../../world/records.js";
import type { EventToDeliver, SettledEnd } from "../../world/store.js";
import type { Event, Message } from "./generated/sqlite/index.js";
import type { HotQueries } from "./hot-queries.js";
import { encodeWithDates } from "./json-text.js";
import { missing } from "./prisma-errors.js";
import { type RawSql, sql } from "./raw-sql.js";
import { messageData } from "./record-data.js";
import { toMessageRecord, toStoredEvent } from "./record-mappers.js";
import type { StepQueries } from "./step-queries.js";

/**
 * Statements of a message's path that were two or three one after another: on PostgreSQL one
 * statement each (writes as data-modifying CTEs: one round trip, all or nothing), on SQLite
 * the same statements one by one as before (there a statement is a call into the process, not
 * a round trip).
 */
export class CombinedStatements {
  constructor(
    private readonly raw: RawSql,
    private readonly clock: () => Date,
    private readonly hot: HotQueries,
    private readonly steps: StepQueries,
    private readonly dialect: "sqlite" | "postgresql",
  ) {}

  /**
   * `Store.addMessage` with `resetAgentTurns`: a message without files and the reset in one
   * statement on PostgreSQL; else the message, then the reset. Unique violations pass through.
   */
  async addMessageResettingTurns(message: NewMessage): Promise<MessageRecord> {
    if (this.dialect === "postgresql" && (message.files ?? []).length === 0) {
      const added = await this.addMessageAndReset(message);
      if (!added.reset) throw missing("chat", message.chatKey);
      return added.message;
    }
    const stored = await this.hot.addMessage(message);
    if (!(await this.hot.setAgentTurns(message.chatKey, 0))) throw missing("chat", message.chatKey);
    return stored;
  }

  /**
   * PostgreSQL: a message without files stored and its chat's `agentTurnsSinceHuman` set back to 0 (a
   * unique violation undoes both). `reset`: the chat existed.
   */
  async addMessageAndReset(message: NewMessage): Promise<{ message: MessageRecord; reset: boolean }> {
    const data = messageData(message, this.clock());
    const rows = await this.raw.rows<Omit<Message, "raw"> & { reset: number | bigint }>(sql`
      WITH reset AS (
        UPDATE "Chat" SET "agentTurnsSinceHuman" = 0 WHERE "key" = ${data.chatKey} RETURNING 1 AS one
      ), inserted AS (
        INSERT INTO "Message" ("id", "chatKey", "authorKind", "authorId", "authorName", "authorHandle", "text",
          "platformMessageId", "replyToId", "turnId", "provider", "model", "providerFields", "raw", "fileCount",
          "createdAt")
        VALUES (${data.id}, ${data.chatKey}, ${data.authorKind}, ${data.authorId}, ${data.authorName},
          ${data.authorHandle}, ${data.text}, ${data.platformMessageId}, ${data.replyToId}, ${data.turnId},
          ${data.provider}, ${data.model}, ${data.providerFields}, ${data.raw}, 0, ${data.createdAt})
        RETURNING "seq", "id", "chatKey", "authorKind", "authorId", "authorName", "authorHandle", "text",
          "platformMessageId", "replyToId", "turnId", "provider", "model", "providerFields", "fileCount", "createdAt"
      )
      SELECT inserted.*, (SELECT COUNT(*) FROM reset) AS reset FROM inserted`);
    const row = rows[0];
    // Programming error: INSERT … RETURNING answers the row it inserted.
    if (!row) throw new Error("message insert returned no row");
    const { reset, ...stored } = row;
    return { message: toMessageRecord(stored), reset: Number(reset) > 0 };
  }

  /**
   * `Store.endSettledTurn`: on PostgreSQL the look for open work, the conditional end and the
   * event in one statement (one snapshot: the end happens only if nothing was open in it).
   */
  async endSettledTurn(id: string, end: { endReason: string; endedAt: Date }, event: WorldEvent): Promise<SettledEnd> {
    if (this.dialect === "postgresql") return this.endSettledTurnAtOnce(id, end, event);
    if (await this.steps.turnHasOpenWork(id)) return { open: true };
    const ended = await this.hot.endTurn(id, end);
    if (!ended) return { open: false };
    return { open: false, stored: await this.hot.appendEvent(ended.chatKey, event) };
  }

  /** PostgreSQL: {@link endSettledTurn} as one data-modifying CTE. */
  async endSettledTurnAtOnce(
    id: string,
    end: { endReason: string; endedAt: Date },
    event: WorldEvent,
  ): Promise<SettledEnd> {
    const rows = await this.raw.rows<{ open: boolean; eventSeq: number | null; eventCreatedAt: Date | null }>(sql`
      WITH work AS (
        SELECT EXISTS (SELECT 1 FROM "ToolCall" WHERE "turnId" = ${id} AND "state" <> 'done')
          OR EXISTS (SELECT 1 FROM "Approval" WHERE "turnId" = ${id} AND "state" = 'pending') AS open
      ), ended AS (
        UPDATE "Turn" SET "state" = 'ended', "endReason" = ${end.endReason}, "endedAt" = ${end.endedAt}
        WHERE "id" = ${id} AND "state" <> 'ended' AND NOT (SELECT open FROM work)
        RETURNING "chatKey"
      ), appended AS (
        INSERT INTO "Event" ("chatKey", "type", "payload", "createdAt")
        SELECT ended."chatKey", ${event.type}::text, ${encodeWithDates(event)}::text, ${this.clock()}::timestamp(3)
        FROM ended
        RETURNING "seq", "createdAt"
      )
      SELECT (SELECT open FROM work) AS open, appended."seq" AS "eventSeq",
        appended."createdAt" AS "eventCreatedAt"
      FROM (SELECT 1) AS one LEFT JOIN appended ON TRUE`);
    const row = rows[0];
    // Programming error: the statement selects from a one-row table, whatever it wrote.
    if (!row) throw new Error("settled turn end returned no row");
    if (row.open) return { open: true };
    if (row.eventSeq === null || row.eventCreatedAt === null) return { open: false };
    return { open: false, stored: { ...event, seq: row.eventSeq, createdAt: row.eventCreatedAt } };
  }

  /**
   * `Store.eventToDeliver`: the event and what is recorded of it (its own delivery; for a
   * message or system event, its message's and that message's draft). On PostgreSQL one
   * statement, the message's id read from the stored payload.
   */
  async eventToDeliver(seq: number): Promise<EventToDeliver | undefined> {
    if (this.dialect !== "postgresql") {
      const event = await this.hot.getEvent(seq);
      if (!event) return undefined;
      const shown = event.type === "message" || event.type === "system" ? event.message.id : undefined;
      const refs = [
        { refKind: "event" as const, refId: String(seq) },
        ...(shown === undefined
          ? []
          : [
              { refKind: "message" as const, refId: shown },
              { refKind: "draft" as const, refId: shown },
            ]),
      ];
      return { event, recorded: await this.hot.getOutbounds(refs) };
    }
    const rows = await this.raw.rows<
      Event & {
        refKind: OutboundRecord["refKind"] | null;
        refId: string | null;
        outboundChatKey: string | null;
        platformMessageId: string | null;
      }
    >(sql`
      WITH event AS (
        SELECT "seq", "chatKey", "type", "payload", "createdAt" FROM "Event" WHERE "seq" = ${seq}
      ), shown AS (
        SELECT CASE WHEN "type" IN ('message', 'system') THEN "payload"::json -> 'message' ->> 'id' END AS id FROM event
      )
      SELECT event."seq", event."chatKey", event."type", event."payload", event."createdAt", o."refKind", o."refId",
        o."chatKey" AS "outboundChatKey", o."platformMessageId"
      FROM event LEFT JOIN "OutboundMessage" AS o
        ON (o."refKind" = 'event' AND o."refId" = ${String(seq)})
          OR (o."refKind" IN ('message', 'draft') AND o."refId" = (SELECT id FROM shown))
      ORDER BY o."refKind" ASC, o."refId" ASC, o."part" ASC`);
    const first = rows[0];
    if (!first) return undefined;
    const recorded = new Map<string, OutboundRecord>();
    for (const row of rows) {
      if (row.refKind === null || row.refId === null || row.platformMessageId === null) continue;
      const key = `${row.refKind}\u0000${row.refId}`;
      const record = recorded.get(key);
      if (record) record.platformMessageIds.push(row.platformMessageId);
      else
        recorded.set(key, {
          chatKey: row.outboundChatKey ?? first.chatKey,
          refKind: row.refKind,
          refId: row.refId,
          platformMessageIds: [row.platformMessageId],
        });
    }
    return { event: toStoredEvent(first), recorded: [...recorded.values()] };
  }
}
