import type {
  HookDecision,
  HookEffects,
  HookOutcomeRecord,
  HookOutcomeStore,
  ReplayHistory,
  RoundtableEvent,
} from "../../world/policy/event-policy.js";
import { StorageError } from "../../errors/roundtable-error.js";
import type { DatabaseClient } from "./database-client.js";
import { rawSqlOf } from "./prisma-raw-sql.js";
import { concatStatements, type RawSql, type SqlStatement, sql } from "./raw-sql.js";
import { toMessageRecord, toToolCallRecord } from "./record-mappers.js";

interface HookOutcomeRow {
  key: string;
  chatKey: string;
  kind: string;
  outcome: string;
  event: string;
  result: string | null;
  createdAt: Date;
}

/** The {@link HookOutcomeStore}: raw SQL for what every message runs, Prisma for the replay's reads. */
export class HookOutcomeQueries implements HookOutcomeStore {
  private readonly raw: RawSql;

  constructor(
    private readonly db: DatabaseClient,
    private readonly clock: () => Date,
  ) {
    this.raw = rawSqlOf(db);
  }

  async getHookOutcome(key: string): Promise<HookOutcomeRecord | undefined> {
    const [row] = await this.raw.rows<HookOutcomeRow>(sql`SELECT * FROM "HookOutcome" WHERE "key" = ${key}`);
    return row ? toHookOutcome(row) : undefined;
  }

  /**
   * One transaction of raw statements (every routed message runs it): the outcome inserted unless
   * one exists, and each effect applied only if the stored outcome is this one (another process's
   * first outcome applied its own effects).
   */
  async recordHookOutcome(
    record: Omit<HookOutcomeRecord, "createdAt">,
    effects: HookEffects,
  ): Promise<HookOutcomeRecord> {
    const result = JSON.stringify(record.decision);
    const stillOurs = sql` AND (SELECT "result" FROM "HookOutcome" WHERE "key" = ${record.key}) = ${result}`;
    const statements: SqlStatement[] = [
      sql`INSERT INTO "HookOutcome" ("key", "chatKey", "kind", "outcome", "event", "result", "createdAt")
        VALUES (${record.key}, ${record.chatKey}, ${record.kind}, ${record.outcome}, ${JSON.stringify(record.event)}, ${result}, ${this.clock()})
        ON CONFLICT ("key") DO NOTHING`,
    ];
    if (effects.messageText)
      statements.push(
        concatStatements([
          sql`UPDATE "Message" SET "text" = ${effects.messageText.text} WHERE "id" = ${effects.messageText.id}`,
          stillOurs,
        ]),
      );
    for (const call of effects.callArguments ?? [])
      statements.push(
        concatStatements([
          sql`UPDATE "ToolCall" SET "arguments" = ${call.argumentsJson} WHERE "id" = ${call.id}`,
          stillOurs,
        ]),
      );
    statements.push(sql`SELECT * FROM "HookOutcome" WHERE "key" = ${record.key}`);
    const answers = await this.raw.batch(statements);
    const [row] = (answers.at(-1) ?? []) as HookOutcomeRow[];
    if (!row) throw new StorageError("storage.failed", `hook outcome ${record.key} was not stored`);
    return toHookOutcome(row);
  }

  async replayHistory(since: Date): Promise<ReplayHistory> {
    const [messages, calls, chats] = await Promise.all([
      this.db.message.findMany({ where: { createdAt: { gte: since } }, orderBy: { seq: "asc" }, omit: { raw: true } }),
      this.db.toolCall.findMany({ where: { createdAt: { gte: since } }, orderBy: { seq: "asc" } }),
      this.db.chat.findMany({ select: { key: true, world: true } }),
    ]);
    return {
      messages: messages.map(toMessageRecord),
      calls: calls.map(toToolCallRecord),
      worldsOfChats: new Map(chats.map((chat) => [chat.key, chat.world])),
    };
  }
}

function toHookOutcome(row: HookOutcomeRow): HookOutcomeRecord {
  return {
    key: row.key,
    chatKey: row.chatKey,
    kind: row.kind as RoundtableEvent["type"],
    outcome: row.outcome as HookDecision["outcome"],
    event: JSON.parse(row.event) as RoundtableEvent,
    decision: (row.result === null ? { outcome: row.outcome } : JSON.parse(row.result)) as HookDecision,
    createdAt: row.createdAt,
  };
}
