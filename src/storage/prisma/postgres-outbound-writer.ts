import type pg from "pg";
import type { Logger } from "../../log/logger.js";
import type { OutboundRecord } from "../../world/records.js";
import type { StatementCount } from "./count-statements.js";
import { keepBrokenClientsQuiet, outboundWriterConnections } from "./postgres-pool.js";

/** Where the platform ids of a post are written (see {@link PostgresOutboundWriter}). */
export interface OutboundWriter {
  /** Replace the platform ids of each ref, as one atomic write. */
  record(records: readonly OutboundRecord[], now: Date): Promise<void>;
  close(): Promise<void>;
}

/**
 * Each ref's parts upserted, and the parts beyond its new count removed, in one statement:
 * the two touch different rows, so their order inside the statement does not matter.
 */
const recordStatement = `
  WITH "given" AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[]) AS g("refKind", "refId", "parts")
  ), "surplus" AS (
    DELETE FROM "OutboundMessage" AS o USING "given" AS g
    WHERE o."refKind" = g."refKind" AND o."refId" = g."refId" AND o."part" >= g."parts"
  )
  INSERT INTO "OutboundMessage" ("chatKey", "refKind", "refId", "part", "platformMessageId", "createdAt")
  SELECT r."chatKey", r."refKind", r."refId", r."part", r."platformMessageId", $9::timestamp(3)
  FROM unnest($4::text[], $5::text[], $6::text[], $7::int[], $8::text[])
    AS r("chatKey", "refKind", "refId", "part", "platformMessageId")
  ON CONFLICT ("refKind", "refId", "part") DO UPDATE SET
    "chatKey" = EXCLUDED."chatKey", "platformMessageId" = EXCLUDED."platformMessageId", "createdAt" = EXCLUDED."createdAt"`;

/**
 * The write that follows every platform post, on PostgreSQL. Until it commits, a SIGKILL makes
 * the step's re-run post again (Telegram has no idempotency key), so it must be as short as it
 * can be: one prepared statement (one round trip, not a transaction of one statement per part)
 * on connections of its own, so that it never waits in line behind the other steps' queries for
 * a connection of the shared pool. The statement is idempotent, so a failed one is sent once
 * more (a connection that broke while idle).
 */
export class PostgresOutboundWriter implements OutboundWriter {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    private readonly statements: StatementCount | undefined,
  ) {}

  /** Opens the pool and one connection of it, so that the first post does not wait for a connect. */
  static async open(connectionString: string, logger: Logger, statements?: StatementCount) {
    const { Pool } = (await import("pg")).default;
    // A post of one chat does not wait behind another's write; idle ones stay open.
    const pool = new Pool({ connectionString, max: outboundWriterConnections, idleTimeoutMillis: 0, keepAlive: true });
    pool.on("error", (error) =>
      logger.warn({ err: error }, "the connection that records posts broke (idle); replaced"),
    );
    keepBrokenClientsQuiet(pool, logger);
    const client = await pool.connect();
    client.release();
    return new PostgresOutboundWriter(pool, logger, statements);
  }

  async record(records: readonly OutboundRecord[], now: Date): Promise<void> {
    // One entry per ref (the last wins, as when they were written one after another).
    const byRef = new Map(records.map((record) => [`${record.refKind}\u0000${record.refId}`, record]));
    const given = [...byRef.values()];
    const parts = given.flatMap((record) =>
      record.platformMessageIds.map((platformMessageId, part) => ({ record, part, platformMessageId })),
    );
    const query = {
      name: "roundtable_record_outbound",
      text: recordStatement,
      values: [
        given.map((record) => record.refKind),
        given.map((record) => record.refId),
        given.map((record) => record.platformMessageIds.length),
        parts.map((entry) => entry.record.chatKey),
        parts.map((entry) => entry.record.refKind),
        parts.map((entry) => entry.record.refId),
        parts.map((entry) => entry.part),
        parts.map((entry) => entry.platformMessageId),
        now.toISOString(),
      ],
    };
    try {
      await this.send(query);
    } catch (error) {
      this.logger.warn({ err: error }, "recording a post's ids failed; sending the write once more");
      await this.send(query);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async send(query: pg.QueryConfig): Promise<void> {
    if (this.statements) this.statements.value += 1;
    await this.pool.query(query);
  }
}
