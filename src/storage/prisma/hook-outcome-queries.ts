import type {
  HookDecision,
  HookEffects,
  HookOutcomeRecord,
  HookOutcomeStore,
  ReplayHistory,
  RoundtableEvent,
} from "../../world/policy/event-policy.js";
import type { DatabaseClient } from "./database-client.js";
import { isUniqueViolation } from "./prisma-errors.js";
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

/** The {@link HookOutcomeStore} over Prisma (SQLite and PostgreSQL alike; not on the hot path). */
export class HookOutcomeQueries implements HookOutcomeStore {
  constructor(
    private readonly db: DatabaseClient,
    private readonly clock: () => Date,
  ) {}

  async getHookOutcome(key: string): Promise<HookOutcomeRecord | undefined> {
    const row = await this.db.hookOutcome.findUnique({ where: { key } });
    return row ? toHookOutcome(row) : undefined;
  }

  async recordHookOutcome(
    record: Omit<HookOutcomeRecord, "createdAt">,
    effects: HookEffects,
  ): Promise<HookOutcomeRecord> {
    try {
      return await this.db.$transaction(async (tx) => {
        const row = await tx.hookOutcome.create({
          data: {
            key: record.key,
            chatKey: record.chatKey,
            kind: record.kind,
            outcome: record.outcome,
            event: JSON.stringify(record.event),
            result: JSON.stringify(record.decision),
            createdAt: this.clock(),
          },
        });
        if (effects.messageText)
          await tx.message.updateMany({
            where: { id: effects.messageText.id },
            data: { text: effects.messageText.text },
          });
        for (const call of effects.callArguments ?? [])
          await tx.toolCall.updateMany({ where: { id: call.id }, data: { arguments: call.argumentsJson } });
        return toHookOutcome(row);
      });
    } catch (error) {
      // Another process (or an earlier run) stored it first: that outcome stands.
      if (!isUniqueViolation(error)) throw error;
      const stored = await this.getHookOutcome(record.key);
      if (!stored) throw error;
      return stored;
    }
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
