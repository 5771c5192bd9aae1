-- A queue's jobs by state and due time. The claim of a queue's next job and its two checks (a
-- job of the queue running, one waiting for its retry) look up that queue's rows; with only
-- ("queue", "state") SQLite's planner chose ("state", "runAt") for two of the three and read
-- every pending job of every queue for each claim: a claim cost grew with the jobs pending
-- (docs/performance.md, "The queue's claim, by queue"). This index serves all three and
-- replaces ("queue", "state"), its prefix.
CREATE INDEX "Job_queue_state_runAt_idx" ON "Job"("queue", "state", "runAt");

DROP INDEX "Job_queue_state_idx";
