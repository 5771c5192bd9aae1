-- Budgets for people, agents and chats: usage per world, scope (world, agent, chat, person),
-- subject and period (UTC day or month), with what approvals raised each period's caps by;
-- alerts posted once per cap, subject, period and threshold; the raises approved.

CREATE TABLE "UsageBucket" (
    "world" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "estimatedCalls" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedInputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "raisedTokens" INTEGER NOT NULL DEFAULT 0,
    "raisedCostUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UsageBucket_pkey" PRIMARY KEY ("world","scope","subject","period")
);

CREATE INDEX "UsageBucket_world_scope_period_idx" ON "UsageBucket"("world", "scope", "period");

CREATE TABLE "BudgetAlert" (
    "world" TEXT NOT NULL,
    "cap" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "threshold" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BudgetAlert_pkey" PRIMARY KEY ("world","cap","subject","period","threshold")
);

CREATE TABLE "BudgetRaise" (
    "approvalId" TEXT NOT NULL,
    "world" TEXT NOT NULL,
    "cap" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "amount" DOUBLE PRECISION NOT NULL,
    "decidedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BudgetRaise_pkey" PRIMARY KEY ("approvalId")
);

CREATE INDEX "BudgetRaise_world_period_idx" ON "BudgetRaise"("world", "period");

-- The world's and agents' days and months so far, from the usage stored per agent and day.
INSERT INTO "UsageBucket" ("world", "scope", "subject", "period", "calls", "estimatedCalls", "inputTokens",
    "outputTokens", "cachedInputTokens", "costUsd")
SELECT "world", 'agent', "agent", "day", "calls", "estimatedCalls", "inputTokens", "outputTokens",
    "cachedInputTokens", "costUsd" FROM "UsageDay";
INSERT INTO "UsageBucket" ("world", "scope", "subject", "period", "calls", "estimatedCalls", "inputTokens",
    "outputTokens", "cachedInputTokens", "costUsd")
SELECT "world", 'agent', "agent", substr("day", 1, 7), SUM("calls"), SUM("estimatedCalls"), SUM("inputTokens"),
    SUM("outputTokens"), SUM("cachedInputTokens"), SUM("costUsd") FROM "UsageDay" GROUP BY "world", "agent", substr("day", 1, 7);
INSERT INTO "UsageBucket" ("world", "scope", "subject", "period", "calls", "estimatedCalls", "inputTokens",
    "outputTokens", "cachedInputTokens", "costUsd")
SELECT "world", 'world', '', "period", SUM("calls"), SUM("estimatedCalls"), SUM("inputTokens"), SUM("outputTokens"),
    SUM("cachedInputTokens"), SUM("costUsd") FROM "UsageBucket" WHERE "scope" = 'agent' GROUP BY "world", "period";

-- A model call charged to its buckets (world, agent, chat, person × day and month) and to the
-- agent's day in "UsageDay", in one statement: under the world day's advisory lock (the key of
-- 0010's reservation, so both serialise), only when every capped bucket stays within its cap
-- plus what approvals raised it by (a cap NULL: none). Returns the buckets after the change,
-- none when a cap would be passed. VOLATILE: each statement reads what the lock's previous
-- holder committed.
CREATE FUNCTION "roundtable_charge_budget"(
    "lockKey" BIGINT, "w" TEXT, "a" TEXT, "d" TEXT, "callCount" INTEGER, "estimated" INTEGER,
    "input" INTEGER, "output" INTEGER, "cached" INTEGER, "cost" DOUBLE PRECISION, "at" TIMESTAMP(3),
    "scopes" TEXT[], "subjects" TEXT[], "periods" TEXT[], "tokenCaps" BIGINT[], "costCaps" DOUBLE PRECISION[]
) RETURNS TABLE ("scope" TEXT, "subject" TEXT, "period" TEXT, "tokens" BIGINT, "costUsd" DOUBLE PRECISION,
    "raisedTokens" BIGINT, "raisedCostUsd" DOUBLE PRECISION)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
BEGIN
    PERFORM pg_advisory_xact_lock("lockKey");
    IF EXISTS (
        SELECT 1 FROM unnest("scopes", "subjects", "periods", "tokenCaps", "costCaps") AS c(s, k, p, tc, cc)
        LEFT JOIN "UsageBucket" b ON b."world" = "w" AND b."scope" = c.s AND b."subject" = c.k AND b."period" = c.p
        WHERE (c.tc IS NOT NULL AND COALESCE(b."inputTokens" + b."outputTokens" - b."raisedTokens", 0)
                + "input" + "output" > c.tc)
            OR (c.cc IS NOT NULL AND COALESCE(b."costUsd" - b."raisedCostUsd", 0) + "cost" > c.cc)
    ) THEN
        RETURN;
    END IF;
    INSERT INTO "UsageDay" AS u ("world", "agent", "day", "calls", "estimatedCalls", "inputTokens", "outputTokens",
        "cachedInputTokens", "costUsd", "updatedAt")
    VALUES ("w", "a", "d", "callCount", "estimated", "input", "output", "cached", "cost", "at")
    ON CONFLICT ("world", "agent", "day") DO UPDATE SET
        "calls" = u."calls" + excluded."calls",
        "estimatedCalls" = u."estimatedCalls" + excluded."estimatedCalls",
        "inputTokens" = u."inputTokens" + excluded."inputTokens",
        "outputTokens" = u."outputTokens" + excluded."outputTokens",
        "cachedInputTokens" = u."cachedInputTokens" + excluded."cachedInputTokens",
        "costUsd" = u."costUsd" + excluded."costUsd",
        "updatedAt" = excluded."updatedAt";
    RETURN QUERY
    INSERT INTO "UsageBucket" AS b ("world", "scope", "subject", "period", "calls", "estimatedCalls", "inputTokens",
        "outputTokens", "cachedInputTokens", "costUsd", "updatedAt")
    SELECT "w", c.s, c.k, c.p, "callCount", "estimated", "input", "output", "cached", "cost", "at"
    FROM unnest("scopes", "subjects", "periods") AS c(s, k, p)
    ON CONFLICT ("world", "scope", "subject", "period") DO UPDATE SET
        "calls" = b."calls" + excluded."calls",
        "estimatedCalls" = b."estimatedCalls" + excluded."estimatedCalls",
        "inputTokens" = b."inputTokens" + excluded."inputTokens",
        "outputTokens" = b."outputTokens" + excluded."outputTokens",
        "cachedInputTokens" = b."cachedInputTokens" + excluded."cachedInputTokens",
        "costUsd" = b."costUsd" + excluded."costUsd",
        "updatedAt" = excluded."updatedAt"
    RETURNING b."scope", b."subject", b."period", CAST(b."inputTokens" + b."outputTokens" AS BIGINT), b."costUsd",
        CAST(b."raisedTokens" AS BIGINT), b."raisedCostUsd";
END
$$;
