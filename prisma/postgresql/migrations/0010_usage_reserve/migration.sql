-- A model call's usage reserved within its world's day caps in one statement (one round trip),
-- where it took four (BEGIN, the advisory lock, the conditional upsert, COMMIT). The caller
-- passes the lock's key (the same as before, so processes of both versions serialise on it).
-- The function is VOLATILE: each statement in it takes a fresh snapshot under READ COMMITTED,
-- so the sum read after the lock includes what the previous holder of the lock committed.
CREATE FUNCTION "roundtable_reserve_usage"(
    "lockKey" BIGINT, "w" TEXT, "a" TEXT, "d" TEXT, "callCount" INTEGER, "estimated" INTEGER,
    "input" INTEGER, "output" INTEGER, "cached" INTEGER, "cost" DOUBLE PRECISION, "at" TIMESTAMP(3),
    "tokenCap" BIGINT, "costCap" DOUBLE PRECISION
) RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock("lockKey");
    IF (SELECT COALESCE(SUM(u."inputTokens" + u."outputTokens"), 0) FROM "UsageDay" u
            WHERE u."world" = "w" AND u."day" = "d") + "input" + "output" > "tokenCap"
        OR (SELECT COALESCE(SUM(u."costUsd"), 0) FROM "UsageDay" u
            WHERE u."world" = "w" AND u."day" = "d") + "cost" > "costCap" THEN
        RETURN FALSE;
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
    RETURN TRUE;
END
$$;
