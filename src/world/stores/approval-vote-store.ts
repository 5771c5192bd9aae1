import type { ApprovalChoice } from "../inbound.js";

/** One approver's press toward a quorum (docs/approvals.md, "Quorum"). */
export interface ApprovalVote {
  approvalId: string;
  voterId: string;
  voterName: string;
  /** The platform the press came from. */
  platform: string;
  /** Which approve choice was pressed (`once`, `session`, `always`). */
  choice: ApprovalChoice;
  at: Date;
}

/**
 * The `Store` part that keeps quorum votes: one per approver and approval, durable, so a
 * quorum can be reached across restarts and processes (each vote through any of them).
 */
export interface ApprovalVoteStore {
  /**
   * Record a vote (a second press by the same person adds nothing: `added` false), committed on
   * its own before the votes are read back, so that of two votes cast at once in two processes
   * at least the later read sees both. Returns every vote of the approval, oldest first.
   */
  addApprovalVote(vote: ApprovalVote): Promise<{ added: boolean; votes: ApprovalVote[] }>;
  listApprovalVotes(approvalId: string): Promise<ApprovalVote[]>;
}
