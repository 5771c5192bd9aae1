-- Quorum votes on approval cards, one per approver (docs/approvals.md, "Quorum").
-- CreateTable
CREATE TABLE "ApprovalVote" (
    "approvalId" TEXT NOT NULL,
    "voterId" TEXT NOT NULL,
    "voterName" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "choice" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ApprovalVote_pkey" PRIMARY KEY ("approvalId","voterId")
);
