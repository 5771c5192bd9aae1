import type {
  CardCopyRecord,
  CardCopyState,
  CardCopyStore,
  CardPlaceKind,
  NewCardCopy,
} from "../../world/approvals/card-copies.js";
import type { DatabaseClient } from "./database-client.js";

interface CardCopyRow {
  approvalId: string;
  chatKey: string;
  kind: string;
  personId: string | null;
  state: string;
  decidedHere: boolean;
  createdAt: Date;
}

function toRecord(row: CardCopyRow): CardCopyRecord {
  return {
    approvalId: row.approvalId,
    chatKey: row.chatKey,
    kind: row.kind as CardPlaceKind,
    ...(row.personId === null ? {} : { personId: row.personId }),
    state: row.state as CardCopyState,
    decidedHere: row.decidedHere,
    createdAt: row.createdAt,
  };
}

/** The {@link CardCopyStore} over Prisma (SQLite and PostgreSQL alike): one row per approval and chat. */
export class CardCopyQueries implements CardCopyStore {
  constructor(
    private readonly db: DatabaseClient,
    private readonly clock: () => Date,
  ) {}

  async addCardCopies(copies: readonly NewCardCopy[]): Promise<void> {
    if (copies.length === 0) return;
    const now = this.clock();
    // An upsert that changes nothing: a copy recorded by an earlier run (or another process) stays.
    await this.db.$transaction(
      copies.map((copy) =>
        this.db.approvalCopy.upsert({
          where: { approvalId_chatKey: { approvalId: copy.approvalId, chatKey: copy.chatKey } },
          create: {
            approvalId: copy.approvalId,
            chatKey: copy.chatKey,
            kind: copy.kind,
            personId: copy.personId ?? null,
            createdAt: now,
          },
          update: {},
        }),
      ),
    );
  }

  async listCardCopies(approvalId: string): Promise<CardCopyRecord[]> {
    const rows = await this.db.approvalCopy.findMany({
      where: { approvalId },
      orderBy: [{ createdAt: "asc" }, { chatKey: "asc" }],
    });
    return rows.map(toRecord);
  }

  async getCardCopy(approvalId: string, chatKey: string): Promise<CardCopyRecord | undefined> {
    const row = await this.db.approvalCopy.findUnique({ where: { approvalId_chatKey: { approvalId, chatKey } } });
    return row ? toRecord(row) : undefined;
  }

  async markCardCopy(
    approvalId: string,
    chatKey: string,
    change: { state: Exclude<CardCopyState, "open"> } | { decidedHere: true },
  ): Promise<boolean> {
    const { count } = await this.db.approvalCopy.updateMany({
      where: { approvalId, chatKey, ...("state" in change ? { state: "open" } : {}) },
      data: change,
    });
    return count === 1;
  }
}
