import pg from "pg";
import { beforeEach, expect, it } from "vitest";
import { createDatabaseClient, postgresPoolOf } from "../../src/storage/prisma/database-client.js";
import { parseDatabaseUrl } from "../../src/storage/prisma/database-target.js";
import type { RunningJob } from "../../src/storage/prisma/graphile-job-table.js";
import { GraphileLiveness } from "../../src/storage/prisma/graphile-liveness.js";
import { PostgresRawSql } from "../../src/storage/prisma/postgres-raw-sql.js";
import { prismaClientsCreated } from "../../src/storage/prisma/lazy-client.js";
import { isUniqueViolation } from "../../src/storage/prisma/prisma-errors.js";
import { PrismaRawSql, rawSqlOf } from "../../src/storage/prisma/prisma-raw-sql.js";
import { sql } from "../../src/storage/prisma/raw-sql.js";
import type { NewToolCall } from "../../src/world/records.js";
import { type Side, twinDatabases } from "./raw-sql-twins.js";
import { describePostgres, quietLogger } from "./test-databases.js";

/**
 * The hot statements on `pg` directly (`PostgresRawSql`) must read and write exactly what they
 * do through Prisma's `$queryRaw`. Two fresh databases get the same calls in the same order
 * with the same clock, one through each way; every answer must be equal (sequences included).
 */
describePostgres("PostgresRawSql", (serverUrl) => {
  const twins = twinDatabases(serverUrl);
  const { same, message } = twins;
  let direct: Side;
  beforeEach(() => {
    direct = twins.direct();
  });

  it("is what createDatabaseClient sets up for PostgreSQL (and the other side is Prisma's)", () => {
    expect(direct.raw).toBeInstanceOf(PostgresRawSql);
    expect(twins.prisma().raw).toBeInstanceOf(PrismaRawSql);
  });

  it("makes Prisma's client at its first statement; closed before that, it ends the shared pool", async () => {
    const before = prismaClientsCreated();
    const db = await createDatabaseClient(parseDatabaseUrl(direct.url));
    expect(await rawSqlOf(db).rows(sql`SELECT 1::int AS ok`)).toEqual([{ ok: 1 }]);
    expect(prismaClientsCreated()).toBe(before);
    const pool = postgresPoolOf(db);
    expect(pool?.ended).toBe(false);
    await db.$disconnect();
    expect(pool?.ended).toBe(true);
    expect(prismaClientsCreated()).toBe(before);
  });

  it("answers every statement of a message's path (chat, inbound key, messages, events, turns, outbound) alike", async () => {
    const chat = "telegram::42:";
    await same((s) => s.store.ensureChat(chat, "w", "telegram"));
    await same((s) => s.store.getChat(chat));
    await same((s) => s.store.getChat("nobody"));
    expect(await same((s) => s.store.claimInboundKey("telegram:1"))).toBe(true);
    expect(await same((s) => s.store.claimInboundKey("telegram:1"))).toBe(false);
    await same((s) => s.store.setAgentTurns(chat, 3));
    await same((s) => s.store.incrementAgentTurns(chat));
    await same((s) => s.store.resetSession(chat));

    await same((s) => s.store.addMessage(message("m1", chat, { platformMessageId: "p1" })));
    await same((s) =>
      s.store.addMessage(
        message("m2", chat, {
          author: { kind: "agent", id: "alice", name: "Alice" },
          replyToId: "m1",
          turnId: "t1",
          provider: "openai",
          model: "gpt",
          providerFields: { id: "resp", n: 1.5 },
          createdAt: new Date("2026-02-03T04:05:06.007Z"),
        }),
      ),
    );
    await expect(same((s) => s.store.addMessage(message("m1", chat)))).rejects.toMatchObject({
      code: "storage.conflict",
    });
    await same((s) => s.store.getMessage("m1"));
    await same((s) => s.store.getMessage("missing"));
    await same((s) => s.store.getMessages(["m2", "m1"]));
    await same((s) => s.store.getMessages(["m2"]));
    await same((s) => s.store.listMessages(chat, { latest: 1 }));
    await same((s) => s.store.listMessages(chat, { latest: 5, afterSeq: 1 }));

    const event = await same((s) =>
      s.store.appendEvent(chat, {
        type: "message",
        messageId: "m1",
        at: new Date("2026-01-01T00:00:00.001Z"),
      } as never),
    );
    await same((s) => s.store.getEvent(event.seq));
    await same((s) => s.store.getEvent(event.seq + 100));

    const deadlineAt = new Date("2026-03-04T06:00:00.000Z");
    const turn = { id: "t1", chatKey: chat, agent: "alice", triggerMessageId: "m1", startedById: "u1", deadlineAt };
    await same((s) => s.store.createTurn(turn));
    await expect(same((s) => s.store.createTurn(turn))).rejects.toMatchObject({ code: "storage.conflict" });
    await same((s) => s.store.getTurn("t1"));
    await same((s) => s.store.createTurn({ ...turn, id: "t0" }, { countInChat: true }));
    await same((s) => s.store.getChat(chat));
    await same((s) => s.store.updateTurn("t1", { step: 1 }));
    await same((s) => s.store.updateTurn("t1", { state: "parked", deadlineAt: new Date("2026-03-04T07:00:00Z") }));
    await same((s) =>
      s.store.updateTurn("t1", { state: "ended", endReason: "done", endedAt: new Date("2026-03-04T05:07:00.5Z") }),
    );
    await same((s) => s.store.endTurn("t1", { endReason: "again", endedAt: new Date("2026-03-04T05:08:00Z") }));
    await expect(same((s) => s.store.updateTurn("none", { step: 2 }))).rejects.toMatchObject({
      code: "storage.failed",
    });
    await same((s) => s.store.listTurns({ chatKey: chat, agent: "alice", states: ["ended"] }));

    await same((s) =>
      s.store.recordOutbound(
        { chatKey: chat, refKind: "message", refId: "m2", platformMessageIds: ["10", "11", "12"] },
        { chatKey: chat, refKind: "approval", refId: "a1", platformMessageIds: ["20"] },
      ),
    );
    await same((s) =>
      s.store.recordOutbound({ chatKey: chat, refKind: "message", refId: "m2", platformMessageIds: ["13"] }),
    );
    await same((s) => s.store.getOutbound("message", "m2"));
    await same((s) => s.store.getOutbound("message", "none"));
    await same((s) =>
      s.store.getOutbounds([
        { refKind: "approval", refId: "a1" },
        { refKind: "message", refId: "m2" },
      ]),
    );
    // Rows written one way read the same through Prisma's model API.
    await same(async (s) =>
      (await s.db.message.findMany({ orderBy: { seq: "asc" } })).map(({ raw: _, ...row }) => row),
    );
    await same((s) => s.db.turn.findMany());
    await same((s) => s.db.chat.findMany());
  });

  it("answers every statement of a model step and its tools (calls, approvals, usage, rate) alike", async () => {
    const chat = "slack:T1:C1:";
    await same((s) => s.store.ensureChat(chat, "w", "slack"));
    const deadlineAt = new Date("2026-03-04T06:00:00.000Z");
    await same((s) =>
      s.store.createTurn({
        id: "t1",
        chatKey: chat,
        agent: "alice",
        triggerMessageId: "m0",
        startedById: "u1",
        deadlineAt,
      }),
    );
    const call = (id: string, step: number): NewToolCall => ({
      id,
      chatKey: chat,
      agent: "alice",
      turnId: "t1",
      messageId: `answer-${step}`,
      step,
      providerCallId: `p-${id}`,
      name: "shell_cmd",
      argumentsJson: JSON.stringify({ cmd: "ls", n: 2 }),
      provider: "openai",
      providerFields: { item: id },
    });
    const answer = (step: number) =>
      message(`answer-${step}`, chat, {
        author: { kind: "agent", id: "alice", name: "Alice" },
        turnId: "t1",
        provider: "openai",
        model: "gpt",
      });
    await same((s) => s.store.addModelStep(answer(1), [call("c1", 1), call("c2", 1)]));
    await same((s) => s.store.addModelStep(answer(2), []));
    await same((s) => s.store.addModelStep(answer(3), [call("c3", 3)]));
    await expect(same((s) => s.store.addModelStep(answer(4), [call("c1", 4)]))).rejects.toMatchObject({
      code: "storage.conflict",
    });
    // The failed step left nothing behind (all or nothing).
    await same((s) => s.store.getMessage("answer-4"));
    await same((s) => s.store.listToolCalls({ turnId: "t1" }));
    await same((s) => s.store.listToolCalls({ turnId: "t1", step: 1 }));
    await same((s) =>
      s.store.listToolCalls({
        chatKey: chat,
        agent: "alice",
        messageIds: ["answer-1", "answer-3"],
        messagesFrom: new Date("2026-03-04T05:06:07.000Z"),
      }),
    );
    await same((s) =>
      s.store.createApproval({
        id: "a1",
        shortId: "k3x",
        chatKey: chat,
        world: "w",
        agent: "alice",
        turnId: "t1",
        toolCallId: "c1",
        requestedFor: "shell_cmd ls",
        reason: "policy",
        expiresAt: new Date("2026-03-04T05:16:07.089Z"),
      }),
    );
    await same((s) => s.store.listApprovals({ turnId: "t1", states: ["pending"] }));
    await same((s) => s.store.listApprovals({ turnId: "t1", states: ["approved"] }));
    await same((s) => s.store.turnHasOpenWork("t1"));
    await same((s) => s.store.turnHasOpenWork("none"));
    await same((s) => s.store.listTurns({ chatKey: chat, agent: "alice", states: ["running"] }));

    const usage = {
      world: "w",
      agent: "alice",
      day: "2026-03-04",
      inputTokens: 10,
      outputTokens: 5,
      cachedInputTokens: 1,
      calls: 1,
      estimatedCalls: 0,
    };
    await same((s) => s.accounting.addUsage({ ...usage, costUsd: 0.125 }));
    await same((s) => s.accounting.addUsage({ ...usage, costUsd: 0.25, estimatedCalls: 1 }));
    // The reservation before a model call: one that fits the day's caps, one that does not.
    await same((s) => s.accounting.reserveUsage({ ...usage, costUsd: 0.5 }, { tokens: 1000, costUsd: 2 }));
    await same((s) => s.accounting.reserveUsage({ ...usage, costUsd: 0.5 }, { tokens: 10 }));
    await same((s) => s.accounting.listUsage({}));
    await same((s) => s.store.addMessage(message("h1", chat)));
    await same((s) =>
      s.accounting.countPersonMessages(
        "slack",
        "u1",
        new Date("2026-03-04T00:00:00Z"),
        new Date("2026-03-05T00:00:00Z"),
      ),
    );
    await same((s) =>
      s.accounting.countPersonMessages("telegram", "u1", new Date(0), new Date("2027-01-01T00:00:00Z")),
    );
  });

  it("answers every statement of the Job table and of graphile-worker's jobs alike", async () => {
    const now = new Date("2026-03-04T05:06:07.089Z");
    const later = new Date(now.getTime() + 60_000);
    expect(
      await same((s) => s.jobs.insert({ queue: "chat-a", key: "route:1", payload: { n: 1 }, priority: 1 }, now)),
    ).toBe(true);
    expect(await same((s) => s.jobs.insert({ queue: "chat-a", key: "route:1", payload: null }, now))).toBe(false);
    await same((s) => s.jobs.insert({ queue: "chat-a", key: "route:2", payload: [1, "two"], priority: 1 }, now));
    await same((s) => s.jobs.insert({ queue: "chat-b", key: "route:3", payload: {}, runAt: later }, now));
    await same((s) => s.jobs.insert({ queue: "chat-a", key: "step:4", payload: 4, priority: 0 }, now));
    await same((s) => s.jobs.dueQueues(now, 10));
    // Priority first (a turn's step before a later message's routing), then the oldest.
    const claimed = await same((s) => s.jobs.claimNextOf("chat-a", "w1:1", now));
    expect(claimed?.key).toBe("step:4");
    // One running job per queue: a second claim of chat-a gets nothing.
    expect(await same((s) => s.jobs.claimNextOf("chat-a", "w2:1", now))).toBeUndefined();
    const step = claimed?.seq ?? 0;
    await same((s) => s.jobs.heartbeat(step, "w1:1", later));
    await same((s) => s.jobs.retry(step, "w1:1", later, "boom"));
    // The chat waits for its retried step: nothing of it is claimed before the step is due again.
    expect(await same((s) => s.jobs.claimNextOf("chat-a", "w1:2", now))).toBeUndefined();
    const next = await same((s) => s.jobs.claimNextOf("chat-a", "w1:2", later));
    expect(next?.key).toBe("step:4");
    await same((s) => s.jobs.complete(next?.seq ?? 0, "w1:2", now));
    await same((s) => s.jobs.claimNextOf("chat-b", "w1:3", later));
    await same((s) => s.jobs.fail(3, "w1:3", later, "gave up"));
    await same((s) => s.jobs.status("route:3"));

    // graphile-worker's jobs: added, claimed, finished, handed back, rescheduled.
    await same((s) => s.graphile.insert({ queue: "chat-c", key: "step:1", payload: { turn: "t" } }, now));
    await same((s) => s.graphile.insert({ queue: "chat-c", key: "step:1", payload: null }, now));
    await same((s) => s.graphile.insert({ queue: "chat-c", key: "step:2", payload: 2, runAt: later }, now));
    const running = async (s: Side, key: string): Promise<RunningJob> => {
      const rows = await s.db.$queryRaw<{ id: string; queue: number | null }[]>`
        SELECT id::text AS id, job_queue_id AS queue FROM graphile_worker._private_jobs WHERE key = ${key}`;
      const row = rows[0];
      if (!row) throw new Error(`no graphile-worker job ${key}`);
      return { jobId: row.id, queueId: row.queue, workerId: "pool-1" };
    };
    await same((s) => s.graphile.claim("step:1", "pool-1:1", now, 3));
    await same((s) => s.graphile.claim("step:1", "pool-1:2", now, 1));
    await same((s) => s.graphile.failExhausted("step:1", now, 1));
    await same(async (s) => s.graphile.finish(1, "pool-1:1", now, await running(s, "step:1")));
    await same(async (s) => s.graphile.handBack("step:2", await running(s, "step:2")));
    await same(async (s) => s.graphile.finishGraphileJob(await running(s, "step:2")));
    // A finish handing the chat on, the next job's row claimed in the same statement; then,
    // as when the queue stops before running it, handed back with the claim undone.
    await same((s) => s.graphile.insert({ queue: "chat-d", key: "hand:1", payload: 3 }, now));
    await same((s) => s.graphile.insert({ queue: "chat-d", key: "hand:2", payload: 4 }, now));
    const lockFor = async (s: Side, key: string) => {
      await s.db.$executeRaw`UPDATE graphile_worker._private_job_queues SET locked_by = 'pool-1', locked_at = now()
        WHERE queue_name = 'chat-d'`;
      await s.db.$executeRaw`UPDATE graphile_worker._private_jobs SET locked_by = 'pool-1', locked_at = now(),
        attempts = attempts + 1 WHERE key = ${key}`;
      return running(s, key);
    };
    const hand1 = await same((s) => s.graphile.claim("hand:1", "pool-1:3", now, 3));
    const handed = await same(async (s) =>
      s.graphile.finish(hand1?.seq ?? 0, "pool-1:3", later, await lockFor(s, "hand:1"), {
        handOver: true,
        claimNext: { token: "pool-1:4", maxAttempts: 3 },
      }),
    );
    expect(handed.next?.claimed).toMatchObject({ token: "pool-1:4", row: { key: "hand:2", attempts: 1 } });
    await same((s) => s.db.job.findMany({ where: { queue: "chat-d" }, orderBy: { seq: "asc" } }));
    await same(async (s) => s.graphile.handBack("hand:2", await running(s, "hand:2"), "pool-1:4"));
    await same((s) => s.db.job.findMany({ where: { queue: "chat-d" }, orderBy: { seq: "asc" } }));
    await same((s) => s.graphile.rescheduleDue(later));
    await same((s) => s.graphile.addMissing(now));
    await same((s) => s.graphile.expiredHolders(later));
    await same((s) => s.graphile.forceUnlock(["pool-1", "pool-2"]));
    await same((s) => s.db.job.findMany({ orderBy: { seq: "asc" } }));
  });

  it("answers the liveness sweep and the release of a dead pool's work alike", async () => {
    // A dead pool's jobs: ours claimed with its tokens, graphile-worker's locked by it a minute ago.
    const now = new Date("2026-03-04T05:06:07.089Z");
    const later = new Date(now.getTime() + 60_000);
    for (const key of ["dead:1", "dead:2", "dead:3", "other:1"])
      await same((s) => s.graphile.insert({ queue: `chat-${key}`, key, payload: key }, now));
    const lockBy = (s: Side, key: string, worker: string) =>
      s.db.$executeRaw`UPDATE graphile_worker._private_jobs SET locked_by = ${worker},
        locked_at = now() - interval '1 minute', attempts = attempts + 1 WHERE key = ${key}`;
    await same(async (s) => {
      await lockBy(s, "dead:1", "pool-dead");
      await lockBy(s, "dead:2", "pool-dead");
      await lockBy(s, "other:1", "pool-gone");
    });
    // dead:1 on its second attempt (taken over once), dead:2 on its first.
    await same((s) => s.graphile.claim("dead:1", "pool-dead:0", now, 3));
    await same((s) => s.graphile.claim("dead:1", "pool-dead:1", now, 3));
    await same((s) => s.graphile.claim("dead:2", "pool-dead:2", now, 3));
    await same((s) => s.graphile.claim("other:1", "pool-gone:1", now, 3));
    const liveness = new Map<Side, GraphileLiveness>();
    const livenessOf = async (s: Side) => {
      let made = liveness.get(s);
      if (!made) {
        made = new GraphileLiveness(s.db, s.url, quietLogger());
        await made.connect();
        liveness.set(s, made);
      }
      return made;
    };
    try {
      // One pool released by itself: one row back to pending, the one out of attempts failed.
      expect(await same(async (s) => (await livenessOf(s)).release(["pool-gone"], 3, later))).toEqual({
        requeued: 1,
        failed: 0,
      });
      await same(async (s) => (await livenessOf(s)).release(["nobody"], 3, later));
      // The sweep finds the other dead pool (nobody holds its lock) and releases it: with 2
      // attempts at most, dead:1 fails and dead:2 goes back to pending.
      const swept = await same(async (s) => (await livenessOf(s)).sweep(2, later));
      expect(swept).toEqual({ workers: ["pool-dead"], requeued: 1, failed: 1 });
      expect(await same(async (s) => (await livenessOf(s)).sweep(2, later))).toEqual({
        workers: [],
        requeued: 0,
        failed: 0,
      });
      await same((s) =>
        s.db.job.findMany({
          orderBy: { seq: "asc" },
          select: { key: true, state: true, lockedBy: true, lastError: true },
        }),
      );
      await same((s) => s.db.$queryRaw`SELECT key, locked_by FROM graphile_worker._private_jobs ORDER BY key`);
    } finally {
      for (const made of liveness.values()) await made.stop();
    }
  });

  it("a finish whose own row another process took over hands the chat on without claiming the next row", async () => {
    // A false "dead process" verdict: our running row was taken back and run by another
    // process. The queue stays one running row (Job_queue_running_key): the finish changes
    // nothing of ours and must not claim the next job's row beside the other process's.
    const now = new Date("2026-03-04T05:06:07.089Z");
    const later = new Date(now.getTime() + 60_000);
    await same((s) => s.graphile.insert({ queue: "chat-e", key: "over:1", payload: 1 }, now));
    await same((s) => s.graphile.insert({ queue: "chat-e", key: "over:2", payload: 2 }, now));
    const running = async (s: Side, key: string): Promise<RunningJob> => {
      await s.db.$executeRaw`UPDATE graphile_worker._private_job_queues SET locked_by = 'pool-1', locked_at = now()
        WHERE queue_name = 'chat-e'`;
      await s.db.$executeRaw`UPDATE graphile_worker._private_jobs SET locked_by = 'pool-1', locked_at = now(),
        attempts = attempts + 1 WHERE key = ${key}`;
      const rows = await s.db.$queryRaw<{ id: string; queue: number | null }[]>`
        SELECT id::text AS id, job_queue_id AS queue FROM graphile_worker._private_jobs WHERE key = ${key}`;
      return { jobId: rows[0]?.id ?? "", queueId: rows[0]?.queue ?? null, workerId: "pool-1" };
    };
    const mine = await same((s) => s.graphile.claim("over:1", "pool-1:1", now, 3));
    await same((s) => s.db.$executeRaw`UPDATE "Job" SET "lockedBy" = 'pool-2:1' WHERE "key" = 'over:1'`);
    const handed = await same(async (s) =>
      s.graphile.finish(mine?.seq ?? 0, "pool-1:1", later, await running(s, "over:1"), {
        handOver: true,
        claimNext: { token: "pool-1:2", maxAttempts: 3 },
      }),
    );
    expect(handed.changed).toBe(false);
    expect(handed.next?.claimed).toBeUndefined();
    const rows = await same((s) =>
      s.db.job.findMany({ where: { queue: "chat-e" }, orderBy: { seq: "asc" }, select: { key: true, state: true } }),
    );
    expect(rows).toEqual([
      { key: "over:1", state: "running" },
      { key: "over:2", state: "pending" },
    ]);
  });

  it("reads counts, sums, floats, nulls, booleans, dates and bound values as $queryRaw does", async () => {
    await direct.db.chat.create({ data: { key: "c1", world: "w", platform: "console" } });
    await direct.db.usageDay.create({
      data: { world: "w", agent: "a", day: "2026-01-01", calls: 3, costUsd: 0.25, updatedAt: new Date() },
    });
    const on = new PrismaRawSql(direct.db);
    const statements = [
      sql`SELECT COUNT(*) AS n, MAX("createdAt") AS newest FROM "Chat"`,
      sql`SELECT MAX("createdAt") AS newest, SUM("agentTurnsSinceHuman") AS total FROM "Chat" WHERE false`,
      sql`SELECT "costUsd", "calls", SUM("calls") AS calls_sum, "updatedAt" FROM "UsageDay" GROUP BY "world", "costUsd", "calls", "updatedAt"`,
      sql`SELECT 1 = 1 AS yes, NULL AS empty, 1.5::float8 AS half, ${true} AS flag, ${"2020-01-01"} AS text, ${7}::int AS seven`,
      sql`SELECT EXISTS (SELECT 1 FROM "Chat") AS present, COALESCE(MAX("calls"), 0) AS most FROM "UsageDay" WHERE false`,
      sql`SELECT ${new Date("2026-01-02T03:04:05.678Z")}::timestamp(3) AS at, ${9007199254740993n}::bigint AS big`,
    ];
    for (const statement of statements) expect(await direct.raw.rows(statement)).toEqual(await on.rows(statement));
  });

  it("writes a batch all or nothing on one connection, and counts each statement once", async () => {
    const chat = (key: string) => sql`
      INSERT INTO "Chat" ("key", "world", "platform", "agentTurnsSinceHuman", "sessionEpoch", "createdAt")
      VALUES (${key}, ${"w"}, ${"console"}, ${0}, ${0}, ${new Date()}) RETURNING "key"`;
    const before = direct.count.value;
    expect(await direct.raw.batch([chat("a"), chat("b")])).toEqual([[{ key: "a" }], [{ key: "b" }]]);
    expect(direct.count.value - before).toBe(4); // BEGIN, two inserts, COMMIT
    expect(await direct.raw.batch([chat("d")])).toEqual([[{ key: "d" }]]);
    expect(direct.count.value - before).toBe(5);
    await expect(direct.raw.batch([chat("c"), chat("a")])).rejects.toSatisfy(isUniqueViolation);
    expect(await direct.raw.rows(sql`SELECT "key" FROM "Chat" ORDER BY "key"`)).toEqual([
      { key: "a" },
      { key: "b" },
      { key: "d" },
    ]);
  });

  it("prepares each call site once per connection (a named statement), and answers a refused one with PostgreSQL's words", async () => {
    const select = (key: string) => sql`SELECT "key" FROM "Chat" WHERE "key" = ${key}`;
    await direct.raw.rows(select("x"));
    await direct.raw.rows(select("y"));
    const client = new pg.Client({ connectionString: direct.url });
    await client.connect();
    try {
      // The direct side's own connection holds the prepared statement; another session sees none.
      expect((await client.query("SELECT count(*)::int AS n FROM pg_prepared_statements")).rows[0]).toEqual({ n: 0 });
    } finally {
      await client.end();
    }
    const prepared = await direct.raw.rows<{ name: string }>(
      sql`SELECT name FROM pg_prepared_statements WHERE statement LIKE ${'%FROM "Chat" WHERE "key" = $1%'}`,
    );
    expect(prepared.map((row) => row.name)).toEqual([expect.stringMatching(/^roundtable_hot_\d+$/)]);
    await expect(direct.raw.rows(sql`SELECT "nothing" FROM "Chat"`)).rejects.toThrow(/nothing/);
  });
});
