-- Limits and spending: model usage per world, agent and UTC day; people's recent messages
-- counted quickly (messagesPerMinute).

-- CreateTable
CREATE TABLE "UsageDay" (
    "world" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedInputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" REAL NOT NULL DEFAULT 0,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("world", "agent", "day")
);

-- CreateIndex
CREATE INDEX "Message_authorId_createdAt_idx" ON "Message"("authorId", "createdAt");

-- CreateIndex
CREATE INDEX "UsageDay_world_day_idx" ON "UsageDay"("world", "day");
