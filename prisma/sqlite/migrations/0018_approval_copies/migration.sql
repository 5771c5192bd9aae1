-- Where an approval's card is shown besides its chat: DMs and the approvals chat (docs/approvals.md).
-- CreateTable
CREATE TABLE "ApprovalCopy" (
    "approvalId" TEXT NOT NULL,
    "chatKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "personId" TEXT,
    "state" TEXT NOT NULL DEFAULT 'open',
    "decidedHere" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("approvalId", "chatKey")
);
