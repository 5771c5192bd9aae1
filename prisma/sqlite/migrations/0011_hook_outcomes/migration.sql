-- Policy hooks' outcomes, one per event, stored before anything acts on them.
-- CreateTable
CREATE TABLE "HookOutcome" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "chatKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "result" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "HookOutcome_chatKey_idx" ON "HookOutcome"("chatKey");
