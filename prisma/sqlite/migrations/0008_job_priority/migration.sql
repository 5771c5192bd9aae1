-- A job's priority in its queue: among the queue's due jobs the lowest runs first, then the
-- oldest. Routing a message (starting new turns) waits behind the steps of the turns already
-- under way, so a chat's turns keep the order of its messages (docs/architecture.md).
ALTER TABLE "Job" ADD COLUMN "priority" INTEGER NOT NULL DEFAULT 0;
