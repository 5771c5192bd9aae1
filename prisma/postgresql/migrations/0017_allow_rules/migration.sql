-- Always allow rules made from cards, and each call one of them allowed (docs/approvals.md).
-- CreateTable
CREATE TABLE "StoredRule" (
    "id" TEXT NOT NULL,
    "world" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "argsHash" TEXT NOT NULL,
    "argumentsJson" TEXT NOT NULL,
    "authorId" TEXT NOT NULL,
    "authorName" TEXT NOT NULL,
    "authorPlatform" TEXT NOT NULL,
    "sourceApprovalId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),
    "revokedBy" TEXT,
    "useCount" INTEGER NOT NULL DEFAULT 0,
    "lastUsedAt" TIMESTAMP(3),

    CONSTRAINT "StoredRule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StoredRuleUse" (
    "toolCallId" TEXT NOT NULL,
    "ruleId" TEXT NOT NULL,
    "world" TEXT NOT NULL,
    "chatKey" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "usedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "StoredRuleUse_pkey" PRIMARY KEY ("toolCallId")
);

-- CreateIndex
CREATE INDEX "StoredRule_world_agent_tool_argsHash_idx" ON "StoredRule"("world", "agent", "tool", "argsHash");

-- CreateIndex
CREATE INDEX "StoredRuleUse_usedAt_idx" ON "StoredRuleUse"("usedAt");

-- CreateIndex
CREATE INDEX "StoredRuleUse_ruleId_idx" ON "StoredRuleUse"("ruleId");
