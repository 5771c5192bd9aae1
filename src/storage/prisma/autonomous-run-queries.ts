import type { AutonomousRunRecord, AutonomousRunStore } from "../../world/autonomous/autonomous-run-store.js";
import { type RawSql, sql } from "./raw-sql.js";

interface AutonomousRunRow {
  id: string;
  source: string;
  name: string;
  occurrence: string;
  world: string;
  agent: string;
  chatKey: string;
  prompt: string;
  createdAt: Date;
}

/**
 * The runs of schedules and triggers (`AutonomousRun`), in raw SQL written once for SQLite and
 * PostgreSQL: a scheduler's tick runs on an idle timer, and a statement there must not load
 * Prisma's engine (docs/architecture.md, "The cost of a message").
 */
export class AutonomousRunQueries implements AutonomousRunStore {
  constructor(
    private readonly raw: RawSql,
    private readonly clock: () => Date,
  ) {}

  async addAutonomousRun(
    run: Omit<AutonomousRunRecord, "createdAt">,
  ): Promise<{ run: AutonomousRunRecord; created: boolean }> {
    const inserted = await this.raw.execute(sql`
      INSERT INTO "AutonomousRun" ("id", "source", "name", "occurrence", "world", "agent", "chatKey", "prompt", "createdAt")
      VALUES (${run.id}, ${run.source}, ${run.name}, ${run.occurrence}, ${run.world}, ${run.agent}, ${run.chatKey},
        ${run.prompt}, ${this.clock()})
      ON CONFLICT DO NOTHING`);
    const rows = await this.raw.rows<AutonomousRunRow>(sql`
      SELECT "id", "source", "name", "occurrence", "world", "agent", "chatKey", "prompt", "createdAt"
      FROM "AutonomousRun" WHERE "source" = ${run.source} AND "name" = ${run.name} AND "occurrence" = ${run.occurrence}`);
    const stored = rows[0];
    // Programming error: the insert either stored the run or met the one stored before (runs are never deleted meanwhile).
    if (!stored) throw new Error(`run ${run.id} was neither stored nor found`);
    return { run: toRecord(stored), created: inserted === 1 };
  }

  async getAutonomousRun(id: string): Promise<AutonomousRunRecord | undefined> {
    const rows = await this.raw.rows<AutonomousRunRow>(sql`
      SELECT "id", "source", "name", "occurrence", "world", "agent", "chatKey", "prompt", "createdAt"
      FROM "AutonomousRun" WHERE "id" = ${id}`);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async listAutonomousRuns(filter: {
    since?: Date;
    source?: AutonomousRunRecord["source"];
    name?: string;
    limit?: number;
  }): Promise<AutonomousRunRecord[]> {
    const limit = filter.limit ?? 100;
    const since = filter.since ?? new Date(0);
    const rows =
      filter.source !== undefined && filter.name !== undefined
        ? await this.raw.rows<AutonomousRunRow>(sql`
            SELECT "id", "source", "name", "occurrence", "world", "agent", "chatKey", "prompt", "createdAt"
            FROM "AutonomousRun" WHERE "source" = ${filter.source} AND "name" = ${filter.name} AND "createdAt" >= ${since}
            ORDER BY "createdAt" DESC, "occurrence" DESC LIMIT ${limit}`)
        : await this.raw.rows<AutonomousRunRow>(sql`
            SELECT "id", "source", "name", "occurrence", "world", "agent", "chatKey", "prompt", "createdAt"
            FROM "AutonomousRun" WHERE "createdAt" >= ${since}
            ORDER BY "createdAt" DESC LIMIT ${limit}`);
    return rows.map(toRecord);
  }
}

function toRecord(row: AutonomousRunRow): AutonomousRunRecord {
  return {
    id: row.id,
    source: row.source === "trigger" ? "trigger" : "schedule",
    name: row.name,
    occurrence: row.occurrence,
    world: row.world,
    agent: row.agent,
    chatKey: row.chatKey,
    prompt: row.prompt,
    createdAt: row.createdAt instanceof Date ? row.createdAt : new Date(row.createdAt),
  };
}
