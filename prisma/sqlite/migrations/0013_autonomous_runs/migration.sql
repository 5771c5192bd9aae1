-- Runs of schedules and triggers: one row per schedule and due time, per trigger and delivery id.
-- CreateTable
CREATE TABLE "AutonomousRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "source" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "occurrence" TEXT NOT NULL,
    "world" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "chatKey" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "AutonomousRun_source_name_occurrence_key" ON "AutonomousRun"("source", "name", "occurrence");

-- CreateIndex
CREATE INDEX "AutonomousRun_createdAt_idx" ON "AutonomousRun"("createdAt");
