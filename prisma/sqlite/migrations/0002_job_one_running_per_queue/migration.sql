-- At most one running job per queue, enforced by the database: a claim that would start a
-- second job of a queue fails instead (the work queue takes that as a lost race). Prisma's
-- schema language has no partial indexes, so this one is written by hand (see model Job).
CREATE UNIQUE INDEX "Job_queue_running_key" ON "Job"("queue") WHERE "state" = 'running';
