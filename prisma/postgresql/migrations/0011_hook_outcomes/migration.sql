-- Policy hooks' outcomes, one per event, stored before anything acts on them.
-- CreateTable
CREATE TABLE "HookOutcome" (
    "key" TEXT NOT NULL,
    "chatKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "result" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "HookOutcome_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "HookOutcome_chatKey_idx" ON "HookOutcome"("chatKey");
