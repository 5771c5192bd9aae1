-- Usage charged for every model request sent: calls whose usage the provider did not report
-- (stopped, timed out, failed) are charged an estimate and counted here.
ALTER TABLE "UsageDay" ADD COLUMN "estimatedCalls" INTEGER NOT NULL DEFAULT 0;
