import type { ApprovalVote, ApprovalVoteStore } from "../../world/stores/approval-vote-store.js";
import type { ApprovalChoice } from "../../world/inbound.js";
import type { DatabaseClient } from "./database-client.js";
import { isUniqueViolation } from "./prisma-errors.js";

/** The {@link ApprovalVoteStore} over Prisma (SQLite and PostgreSQL alike). */
export class ApprovalVoteQueries implements ApprovalVoteStore {
  constructor(private readonly db: DatabaseClient) {}

  async addApprovalVote(vote: ApprovalVote): Promise<{ added: boolean; votes: ApprovalVote[] }> {
    let added = true;
    try {
      await this.db.approvalVote.create({
        data: {
          approvalId: vote.approvalId,
          voterId: vote.voterId,
          voterName: vote.voterName,
          platform: vote.platform,
          choice: vote.choice,
          createdAt: vote.at,
        },
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      added = false;
    }
    return { added, votes: await this.listApprovalVotes(vote.approvalId) };
  }

  async listApprovalVotes(approvalId: string): Promise<ApprovalVote[]> {
    const rows = await this.db.approvalVote.findMany({
      where: { approvalId },
      orderBy: [{ createdAt: "asc" }, { voterId: "asc" }],
    });
    return rows.map((row) => ({
      approvalId: row.approvalId,
      voterId: row.voterId,
      voterName: row.voterName,
      platform: row.platform,
      choice: row.choice as ApprovalChoice,
      at: row.createdAt,
    }));
  }
}
