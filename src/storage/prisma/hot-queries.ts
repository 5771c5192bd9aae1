import type { StoredEvent, WorldEvent } from "../../world/events.js";
import type {
  ChatRecord,
  MessageFile,
  MessageRecord,
  NewMessage,
  OutboundRecord,
  TurnRecord,
  TurnState,
} from "../../world/records.js";
import type { Chat, Event, Message, Turn } from "./generated/sqlite/index.js";
import { encodeWithDates } from "./json-text.js";
import type { OutboundWriter } from "./postgres-outbound-writer.js";
import { type RawSql, type SqlStatement, sql } from "./raw-sql.js";
import { messageData } from "./record-data.js";
import { toChatRecord, toMessageRecord, toStoredEvent, toTurnRecord } from "./record-mappers.js";

/** A stored message row as the mappers read it (every column but the platform's raw payload). */
type MessageRow = Omit<Message, "raw">;

/** A stored file row as read back (the driver gives bytes as a Buffer or a Uint8Array). */
interface MessageFileRow {
  name: string;
  mediaType: string;
  size: number | bigint;
  bytes: Uint8Array | null;
  refusal: string | null;
}

/** Seq `> -1` is every row: sequence numbers start at 1. */
const fromStart = -1;

/**
 * The statements every answered message runs, in raw SQL ({@link RawSql}: on SQLite straight on
 * the connection, on PostgreSQL through Prisma's client): the model API costs two to three times
 * as much CPU per statement (its query compiler and result mapping), and these need no query
 * builder. The rows come back typed by their columns (dates as `Date`), so the model API's
 * mappers read them.
 */
export class HotQueries {
  constructor(
    private readonly raw: RawSql,
    private readonly clock: () => Date,
    /** PostgreSQL: the write after a platform post goes its own, shorter way. */
    private readonly outboundWriter?: OutboundWriter,
  ) {}

  async getChat(key: string): Promise<ChatRecord | undefined> {
    const rows = await this.raw.rows<Chat>(sql`
      SELECT "key", "world", "platform", "agentTurnsSinceHuman", "sessionEpoch", "createdAt"
      FROM "Chat" WHERE "key" = ${key}`);
    return rows[0] ? toChatRecord(rows[0]) : undefined;
  }

  /** One statement: the chat after the change, or undefined when there is no such chat. */
  async setAgentTurns(key: string, count: number): Promise<ChatRecord | undefined> {
    const rows = await this.raw.rows<Chat>(sql`
      UPDATE "Chat" SET "agentTurnsSinceHuman" = ${count} WHERE "key" = ${key}
      RETURNING "key", "world", "platform", "agentTurnsSinceHuman", "sessionEpoch", "createdAt"`);
    return rows[0] ? toChatRecord(rows[0]) : undefined;
  }

  /** One statement: the count after the change, or undefined when there is no such chat. */
  async incrementAgentTurns(key: string): Promise<number | undefined> {
    const rows = await this.raw.rows<{ value: number | bigint }>(sql`
      UPDATE "Chat" SET "agentTurnsSinceHuman" = "agentTurnsSinceHuman" + 1
      WHERE "key" = ${key} RETURNING "agentTurnsSinceHuman" AS value`);
    const value = rows[0]?.value;
    return value === undefined ? undefined : Number(value);
  }

  /**
   * Throws the driver's unique violation when the id exists (the caller maps it). A message with
   * files stores them in the same transaction; one without runs the one statement it always did.
   */
  async addMessage(message: NewMessage): Promise<MessageRecord> {
    const data = messageData(message, this.clock());
    const files = message.files ?? [];
    const insert = sql`
      INSERT INTO "Message" ("id", "chatKey", "authorKind", "authorId", "authorName", "authorHandle", "text",
        "platformMessageId", "replyToId", "turnId", "provider", "model", "providerFields", "raw", "fileCount",
        "createdAt")
      VALUES (${data.id}, ${data.chatKey}, ${data.authorKind}, ${data.authorId}, ${data.authorName},
        ${data.authorHandle}, ${data.text}, ${data.platformMessageId}, ${data.replyToId}, ${data.turnId},
        ${data.provider}, ${data.model}, ${data.providerFields}, ${data.raw}, ${files.length}, ${data.createdAt})
      RETURNING "seq", "id", "chatKey", "authorKind", "authorId", "authorName", "authorHandle", "text",
        "platformMessageId", "replyToId", "turnId", "provider", "model", "providerFields", "fileCount", "createdAt"`;
    if (files.length === 0) return toMessageRecord(onlyRow(await this.raw.rows<MessageRow>(insert), "message insert"));
    const [stored] = await this.raw.batch([
      insert,
      ...files.map(
        (file, position) => sql`
          INSERT INTO "MessageFile" ("messageId", "position", "name", "mediaType", "size", "bytes", "refusal")
          VALUES (${data.id}, ${position}, ${file.name}, ${file.mediaType}, ${file.size},
            ${file.bytes === undefined ? null : Buffer.from(file.bytes)}, ${file.refusal ?? null})`,
      ),
    ]);
    return toMessageRecord(onlyRow((stored ?? []) as MessageRow[], "message insert"));
  }

  async messageFiles(messageId: string): Promise<MessageFile[]> {
    const rows = await this.raw.rows<MessageFileRow>(sql`
      SELECT "name", "mediaType", "size", "bytes", "refusal" FROM "MessageFile"
      WHERE "messageId" = ${messageId} ORDER BY "position" ASC`);
    return rows.map((row) => ({
      name: row.name,
      mediaType: row.mediaType,
      size: Number(row.size),
      ...(row.bytes === null ? {} : { bytes: new Uint8Array(row.bytes) }),
      ...(row.refusal === null ? {} : { refusal: row.refusal }),
    }));
  }

  async getMessage(id: string): Promise<MessageRecord | undefined> {
    const rows = await this.raw.rows<MessageRow>(sql`
      SELECT "seq", "id", "chatKey", "authorKind", "authorId", "authorName", "authorHandle", "text",
        "platformMessageId", "replyToId", "turnId", "provider", "model", "providerFields", "fileCount", "createdAt"
      FROM "Message" WHERE "id" = ${id}`);
    return rows[0] ? toMessageRecord(rows[0]) : undefined;
  }

  async getMessages(ids: readonly string[]): Promise<MessageRecord[]> {
    const first = ids[0];
    if (first === undefined) return [];
    // Programming error: the callers ask for a message and the one it replies to.
    if (ids.length > 2) throw new Error("getMessages reads at most 2 messages");
    // One id repeats the first (the statement has a fixed shape, so it is prepared once).
    const rows = await this.raw.rows<MessageRow>(sql`
      SELECT "seq", "id", "chatKey", "authorKind", "authorId", "authorName", "authorHandle", "text",
        "platformMessageId", "replyToId", "turnId", "provider", "model", "providerFields", "fileCount", "createdAt"
      FROM "Message" WHERE "id" = ${first} OR "id" = ${ids[1] ?? first} ORDER BY "seq" ASC`);
    return rows.map(toMessageRecord);
  }

  /** The newest `latest` messages after `afterSeq`, in stored order. */
  async latestMessages(chatKey: string, latest: number, afterSeq = fromStart): Promise<MessageRecord[]> {
    const rows = await this.raw.rows<MessageRow>(sql`
      SELECT "seq", "id", "chatKey", "authorKind", "authorId", "authorName", "authorHandle", "text",
        "platformMessageId", "replyToId", "turnId", "provider", "model", "providerFields", "fileCount", "createdAt"
      FROM "Message" WHERE "chatKey" = ${chatKey} AND "seq" > ${afterSeq}
      ORDER BY "seq" DESC LIMIT ${Math.max(0, Math.floor(latest))}`);
    return rows.reverse().map(toMessageRecord);
  }

  /** The event as given, with its seq and time (its payload is not read back and parsed again). */
  async appendEvent(chatKey: string, event: WorldEvent): Promise<StoredEvent> {
    const rows = await this.raw.rows<Pick<Event, "seq" | "createdAt">>(sql`
      INSERT INTO "Event" ("chatKey", "type", "payload", "createdAt")
      VALUES (${chatKey}, ${event.type}, ${encodeWithDates(event)}, ${this.clock()})
      RETURNING "seq", "createdAt"`);
    const row = onlyRow(rows, "event insert");
    return { ...event, seq: row.seq, createdAt: row.createdAt };
  }

  /**
   * `Store.listRecentEvents`: around Prisma's client, since a start runs it (recovering lost
   * steps) and a start loads none of that client.
   */
  async recentEvents(limit: number): Promise<StoredEvent[]> {
    const rows = await this.raw.rows<Event>(sql`
      SELECT "seq", "chatKey", "type", "payload", "createdAt" FROM "Event"
      ORDER BY "seq" DESC LIMIT ${Math.max(0, Math.floor(limit))}`);
    return rows.reverse().map(toStoredEvent);
  }

  async getEvent(seq: number): Promise<StoredEvent | undefined> {
    const rows = await this.raw.rows<Event>(sql`
      SELECT "seq", "chatKey", "type", "payload", "createdAt" FROM "Event" WHERE "seq" = ${seq}`);
    return rows[0] ? toStoredEvent(rows[0]) : undefined;
  }

  /** Throws the driver's unique violation when the id exists (the caller maps it). */
  async createTurn(
    turn: Omit<TurnRecord, "state" | "step" | "startedAt"> & { state?: TurnState },
  ): Promise<TurnRecord> {
    const rows = await this.raw.rows<Turn>(sql`
      INSERT INTO "Turn" ("id", "chatKey", "agent", "state", "triggerMessageId", "startedById", "step",
        "deadlineAt", "endReason", "startedAt", "endedAt")
      VALUES (${turn.id}, ${turn.chatKey}, ${turn.agent}, ${turn.state ?? "running"}, ${turn.triggerMessageId},
        ${turn.startedById}, 0, ${turn.deadlineAt}, ${turn.endReason ?? null}, ${this.clock()}, ${turn.endedAt ?? null})
      RETURNING "id", "chatKey", "agent", "state", "triggerMessageId", "startedById", "step", "deadlineAt",
        "endReason", "startedAt", "endedAt", "stoppedById", "stoppedByName"`);
    return toTurnRecord(onlyRow(rows, "turn insert"));
  }

  /**
   * PostgreSQL only (a data-modifying CTE): {@link createTurn} and the chat's agent-turn count
   * up by one, in one statement (one round trip; a unique violation undoes both). `counted`:
   * the chat existed.
   */
  async createCountedTurn(
    turn: Omit<TurnRecord, "state" | "step" | "startedAt"> & { state?: TurnState },
  ): Promise<{ turn: TurnRecord; counted: boolean }> {
    const rows = await this.raw.rows<Turn & { counted: number | bigint }>(sql`
      WITH counted AS (
        UPDATE "Chat" SET "agentTurnsSinceHuman" = "agentTurnsSinceHuman" + 1 WHERE "key" = ${turn.chatKey}
        RETURNING 1 AS one
      ), inserted AS (
        INSERT INTO "Turn" ("id", "chatKey", "agent", "state", "triggerMessageId", "startedById", "step",
          "deadlineAt", "endReason", "startedAt", "endedAt")
        VALUES (${turn.id}, ${turn.chatKey}, ${turn.agent}, ${turn.state ?? "running"}, ${turn.triggerMessageId},
          ${turn.startedById}, 0, ${turn.deadlineAt}, ${turn.endReason ?? null}, ${this.clock()}, ${turn.endedAt ?? null})
        RETURNING "id", "chatKey", "agent", "state", "triggerMessageId", "startedById", "step", "deadlineAt",
          "endReason", "startedAt", "endedAt", "stoppedById", "stoppedByName"
      )
      SELECT inserted.*, (SELECT COUNT(*) FROM counted) AS counted FROM inserted`);
    const row = onlyRow(rows, "turn insert");
    return { turn: toTurnRecord(row), counted: Number(row.counted) > 0 };
  }

  async getTurn(id: string): Promise<TurnRecord | undefined> {
    const rows = await this.raw.rows<Turn>(sql`
      SELECT "id", "chatKey", "agent", "state", "triggerMessageId", "startedById", "step", "deadlineAt",
        "endReason", "startedAt", "endedAt", "stoppedById", "stoppedByName"
      FROM "Turn" WHERE "id" = ${id}`);
    return rows[0] ? toTurnRecord(rows[0]) : undefined;
  }

  /**
   * The turns among `ids` with a stop marker: their stoppers. Statements of one fixed shape
   * ({@link stopChunk} ids each, the last chunk padded with its first id), so a poll over a
   * thousand watched turns is a few dozen statements, not a thousand.
   */
  async stoppedTurns(ids: readonly string[]): Promise<{ id: string; stoppedBy: { id: string; name: string } }[]> {
    const found: { id: string; stoppedBy: { id: string; name: string } }[] = [];
    for (let start = 0; start < ids.length; start += stopChunk) {
      const chunk = ids.slice(start, start + stopChunk);
      const first = chunk[0];
      if (first === undefined) break;
      while (chunk.length < stopChunk) chunk.push(first);
      const rows = await this.raw.rows<{ id: string; stoppedById: string; stoppedByName: string | null }>({
        strings: stoppedTurnsText,
        values: chunk,
      });
      for (const row of rows)
        found.push({ id: row.id, stoppedBy: { id: row.stoppedById, name: row.stoppedByName ?? row.stoppedById } });
    }
    return found;
  }

  /**
   * One statement: the given fields change, the others keep their values (a flag per field,
   * so a field is never set from a guessed default). Undefined when there is no such turn.
   */
  async updateTurn(
    id: string,
    change: Partial<Pick<TurnRecord, "state" | "step" | "endReason" | "endedAt" | "deadlineAt">>,
  ): Promise<TurnRecord | undefined> {
    const rows = await this.raw.rows<Turn>(sql`
      UPDATE "Turn" SET
        "state" = CASE WHEN ${change.state !== undefined} THEN ${change.state ?? ""} ELSE "state" END,
        "step" = CASE WHEN ${change.step !== undefined} THEN ${change.step ?? 0} ELSE "step" END,
        "endReason" = CASE WHEN ${change.endReason !== undefined} THEN ${change.endReason ?? ""} ELSE "endReason" END,
        "endedAt" = CASE WHEN ${change.endedAt !== undefined} THEN ${change.endedAt ?? this.clock()} ELSE "endedAt" END,
        "deadlineAt" = CASE WHEN ${change.deadlineAt !== undefined} THEN ${change.deadlineAt ?? this.clock()} ELSE "deadlineAt" END
      WHERE "id" = ${id}
      RETURNING "id", "chatKey", "agent", "state", "triggerMessageId", "startedById", "step", "deadlineAt",
        "endReason", "startedAt", "endedAt", "stoppedById", "stoppedByName"`);
    return rows[0] ? toTurnRecord(rows[0]) : undefined;
  }

  /** Ended here only if not ended yet (`Store.endTurn`): the turn, or undefined. */
  async endTurn(id: string, end: { endReason: string; endedAt: Date }): Promise<TurnRecord | undefined> {
    const rows = await this.raw.rows<Turn>(sql`
      UPDATE "Turn" SET "state" = 'ended', "endReason" = ${end.endReason}, "endedAt" = ${end.endedAt}
      WHERE "id" = ${id} AND "state" <> 'ended'
      RETURNING "id", "chatKey", "agent", "state", "triggerMessageId", "startedById", "step", "deadlineAt",
        "endReason", "startedAt", "endedAt", "stoppedById", "stoppedByName"`);
    return rows[0] ? toTurnRecord(rows[0]) : undefined;
  }

  /**
   * Replace the platform ids of each ref, in one batched transaction (no round trip back to us
   * between its statements; one delete for up to three refs, one insert for up to two rows), or
   * on PostgreSQL in one statement on connections of its own (`PostgresOutboundWriter`): the
   * outbox calls this right after a platform post, and until it commits a crash posts again.
   */
  async recordOutbound(records: readonly OutboundRecord[]): Promise<void> {
    const now = this.clock();
    if (this.outboundWriter) return this.outboundWriter.record(records, now);
    // A ref named twice keeps its last ids, as if each record replaced the one before.
    const latest = [...new Map(records.map((record) => [`${record.refKind}\u0000${record.refId}`, record])).values()];
    const rows = latest.flatMap((record) =>
      record.platformMessageIds.map((platformMessageId, part) => ({ ...record, part, platformMessageId })),
    );
    // Fixed shapes (prepared once): the refs' rows go three refs a statement, the new rows two a statement.
    const statements: SqlStatement[] = [];
    for (let index = 0; index < latest.length; index += outboundRefsAtOnce) {
      const [first, second = first, third = first] = latest.slice(index, index + outboundRefsAtOnce) as [
        OutboundRecord,
        OutboundRecord?,
        OutboundRecord?,
      ];
      statements.push(sql`
        DELETE FROM "OutboundMessage"
        WHERE ("refKind" = ${first.refKind} AND "refId" = ${first.refId})
          OR ("refKind" = ${second.refKind} AND "refId" = ${second.refId})
          OR ("refKind" = ${third.refKind} AND "refId" = ${third.refId})`);
    }
    for (let index = 0; index < rows.length; index += 2) {
      const one = rows[index] as (typeof rows)[number];
      const two = rows[index + 1];
      statements.push(
        two
          ? sql`
            INSERT INTO "OutboundMessage" ("chatKey", "refKind", "refId", "part", "platformMessageId", "createdAt")
            VALUES (${one.chatKey}, ${one.refKind}, ${one.refId}, ${one.part}, ${one.platformMessageId}, ${now}),
              (${two.chatKey}, ${two.refKind}, ${two.refId}, ${two.part}, ${two.platformMessageId}, ${now})`
          : sql`
            INSERT INTO "OutboundMessage" ("chatKey", "refKind", "refId", "part", "platformMessageId", "createdAt")
            VALUES (${one.chatKey}, ${one.refKind}, ${one.refId}, ${one.part}, ${one.platformMessageId}, ${now})`,
      );
    }
    await this.raw.batch(statements);
  }

  async getOutbounds(refs: readonly Pick<OutboundRecord, "refKind" | "refId">[]): Promise<OutboundRecord[]> {
    const first = refs[0];
    if (!first) return [];
    // Programming error: the callers ask for at most this many (the statement has a fixed shape).
    if (refs.length > outboundRefsAtOnce) throw new Error(`getOutbounds reads at most ${outboundRefsAtOnce} refs`);
    // Fewer refs repeat the first (the statement has a fixed shape, so it is prepared once).
    const second = refs[1] ?? first;
    const third = refs[2] ?? first;
    const rows = await this.raw.rows<{
      refKind: OutboundRecord["refKind"];
      refId: string;
      chatKey: string;
      platformMessageId: string;
    }>(sql`
      SELECT "refKind", "refId", "chatKey", "platformMessageId" FROM "OutboundMessage"
      WHERE ("refKind" = ${first.refKind} AND "refId" = ${first.refId})
        OR ("refKind" = ${second.refKind} AND "refId" = ${second.refId})
        OR ("refKind" = ${third.refKind} AND "refId" = ${third.refId})
      ORDER BY "refKind" ASC, "refId" ASC, "part" ASC`);
    const records = new Map<string, OutboundRecord>();
    for (const row of rows) {
      const key = `${row.refKind}\u0000${row.refId}`;
      const record = records.get(key);
      if (record) record.platformMessageIds.push(row.platformMessageId);
      else
        records.set(key, {
          chatKey: row.chatKey,
          refKind: row.refKind,
          refId: row.refId,
          platformMessageIds: [row.platformMessageId],
        });
    }
    return [...records.values()];
  }

  async getOutbound(refKind: OutboundRecord["refKind"], refId: string): Promise<OutboundRecord | undefined> {
    const rows = await this.raw.rows<{ chatKey: string; platformMessageId: string }>(sql`
      SELECT "chatKey", "platformMessageId" FROM "OutboundMessage"
      WHERE "refKind" = ${refKind} AND "refId" = ${refId} ORDER BY "part" ASC`);
    const first = rows[0];
    if (!first) return undefined;
    return { chatKey: first.chatKey, refKind, refId, platformMessageIds: rows.map((row) => row.platformMessageId) };
  }
}

/** How many refs {@link HotQueries.getOutbounds} reads in its one statement. */
const outboundRefsAtOnce = 3;

function onlyRow<T>(rows: T[], what: string): T {
  const row = rows[0];
  // Programming error: used only for statements that always answer a row (RETURNING, COUNT).
  if (!row) throw new Error(`${what} returned no row`);
  return row;
}

/** Turns a stop-marker statement reads at once. */
const stopChunk = 50;
const stoppedTurnsParts = [
  `SELECT "id", "stoppedById", "stoppedByName" FROM "Turn" WHERE "stoppedById" IS NOT NULL AND "id" IN (`,
  ...Array.from({ length: stopChunk - 1 }, () => ", "),
  ")",
];
/** One object for every statement of the poll: the raw runners prepare it once. */
const stoppedTurnsText = Object.assign(stoppedTurnsParts, {
  raw: [...stoppedTurnsParts],
}) as unknown as TemplateStringsArray;
