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
    "costUsd" REAL NOT NULL DEFAULT 0,
    "raisedTokens" INTEGER NOT NULL DEFAULT 0,
    "raisedCostUsd" REAL NOT NULL DEFAULT 0,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("world", "scope", "subject", "period")
);

CREATE INDEX "UsageBucket_world_scope_period_idx" ON "UsageBucket"("world", "scope", "period");

CREATE TABLE "BudgetAlert" (
    "world" TEXT NOT NULL,
    "cap" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "threshold" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("world", "cap", "subject", "period", "threshold")
);

CREATE TABLE "BudgetRaise" (
    "approvalId" TEXT NOT NULL PRIMARY KEY,
    "world" TEXT NOT NULL,
    "cap" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "amount" REAL NOT NULL,
    "decidedBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
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

-- A model call is charged in one statement (the buckets' upsert): its agent's day in "UsageDay"
-- follows the agent's day bucket by these triggers (created after the backfill above, which
-- came from "UsageDay"). On PostgreSQL "roundtable_charge_budget" writes both.
CREATE TRIGGER "UsageBucket_agent_day_insert" AFTER INSERT ON "UsageBucket"
WHEN NEW."scope" = 'agent' AND length(NEW."period") = 10
BEGIN
    INSERT INTO "UsageDay" ("world", "agent", "day", "calls", "estimatedCalls", "inputTokens", "outputTokens",
        "cachedInputTokens", "costUsd", "updatedAt")
    VALUES (NEW."world", NEW."subject", NEW."period", NEW."calls", NEW."estimatedCalls", NEW."inputTokens",
        NEW."outputTokens", NEW."cachedInputTokens", NEW."costUsd", NEW."updatedAt")
    ON CONFLICT ("world", "agent", "day") DO UPDATE SET
        "calls" = "calls" + excluded."calls",
        "estimatedCalls" = "estimatedCalls" + excluded."estimatedCalls",
        "inputTokens" = "inputTokens" + excluded."inputTokens",
        "outputTokens" = "outputTokens" + excluded."outputTokens",
        "cachedInputTokens" = "cachedInputTokens" + excluded."cachedInputTokens",
        "costUsd" = "costUsd" + excluded."costUsd",
        "updatedAt" = excluded."updatedAt";
END;

CREATE TRIGGER "UsageBucket_agent_day_update" AFTER UPDATE ON "UsageBucket"
WHEN NEW."scope" = 'agent' AND length(NEW."period") = 10 AND NEW."calls" + NEW."estimatedCalls" + NEW."inputTokens"
    + NEW."outputTokens" + NEW."cachedInputTokens" + NEW."costUsd" <> OLD."calls" + OLD."estimatedCalls"
    + OLD."inputTokens" + OLD."outputTokens" + OLD."cachedInputTokens" + OLD."costUsd"
BEGIN
    INSERT INTO "UsageDay" ("world", "agent", "day", "calls", "estimatedCalls", "inputTokens", "outputTokens",
        "cachedInputTokens", "costUsd", "updatedAt")
    VALUES (NEW."world", NEW."subject", NEW."period", NEW."calls" - OLD."calls",
        NEW."estimatedCalls" - OLD."estimatedCalls", NEW."inputTokens" - OLD."inputTokens",
        NEW."outputTokens" - OLD."outputTokens", NEW."cachedInputTokens" - OLD."cachedInputTokens",
        NEW."costUsd" - OLD."costUsd", NEW."updatedAt")
    ON CONFLICT ("world", "agent", "day") DO UPDATE SET
        "calls" = "calls" + excluded."calls",
        "estimatedCalls" = "estimatedCalls" + excluded."estimatedCalls",
        "inputTokens" = "inputTokens" + excluded."inputTokens",
        "outputTokens" = "outputTokens" + excluded."outputTokens",
        "cachedInputTokens" = "cachedInputTokens" + excluded."cachedInputTokens",
        "costUsd" = "costUsd" + excluded."costUsd",
        "updatedAt" = excluded."updatedAt";
END;
