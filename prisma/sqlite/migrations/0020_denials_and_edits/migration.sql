-- Denials that stick in a chat until /reset, and edited arguments of an approved call (docs/approvals.md).
-- AlterTable
ALTER TABLE "Approval" ADD COLUMN "editedArgumentsJson" TEXT;

-- CreateTable
CREATE TABLE "DeniedCall" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "chatKey" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "argsHash" TEXT NOT NULL,
    "sessionEpoch" INTEGER NOT NULL,
    "approvalId" TEXT NOT NULL,
    "deniedById" TEXT NOT NULL,
    "deniedByName" TEXT NOT NULL,
    "reason" TEXT,
    "createdAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "DeniedCall_chatKey_agent_tool_argsHash_sessionEpoch_key" ON "DeniedCall"("chatKey", "agent", "tool", "argsHash", "sessionEpoch");
