import type { ToolCallState, ToolResultRecord } from "../../world/records.js";
import type { DatabaseClient } from "./database-client.js";
import { isUniqueViolation, missing } from "./prisma-errors.js";
import { toToolResultRecord } from "./record-mappers.js";

/** A tool call's state and its one result, over Prisma (SQLite and PostgreSQL alike). */
export class ToolResultQueries {
  constructor(
    private readonly db: DatabaseClient,
    private readonly clock: () => Date,
  ) {}

  async setToolCallState(id: string, state: ToolCallState): Promise<void> {
    const { count } = await this.db.toolCall.updateMany({ where: { id }, data: { state } });
    if (count === 0) throw missing("tool call", id);
  }

  async addToolResult(result: Omit<ToolResultRecord, "createdAt">): Promise<boolean> {
    try {
      await this.db.$transaction(async (tx) => {
        await tx.toolResult.create({
          data: { toolCallId: result.toolCallId, kind: result.kind, content: result.content, createdAt: this.clock() },
        });
        const { count } = await tx.toolCall.updateMany({ where: { id: result.toolCallId }, data: { state: "done" } });
        if (count === 0) throw missing("tool call", result.toolCallId);
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async getToolResult(toolCallId: string): Promise<ToolResultRecord | undefined> {
    const row = await this.db.toolResult.findUnique({ where: { toolCallId } });
    return row ? toToolResultRecord(row) : undefined;
  }

  async listToolResults(toolCallIds: string[]): Promise<ToolResultRecord[]> {
    if (toolCallIds.length === 0) return [];
    const rows = await this.db.toolResult.findMany({
      where: { toolCallId: { in: [...new Set(toolCallIds)] } },
      orderBy: { seq: "asc" },
    });
    return rows.map(toToolResultRecord);
  }
}
