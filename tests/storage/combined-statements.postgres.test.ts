import { expect, it } from "vitest";
import { isUniqueViolation } from "../../src/storage/prisma/prisma-errors.js";
import { parseChatKey } from "../../src/world/chat-ref.js";
import { twinDatabases } from "./raw-sql-twins.js";
import { describePostgres } from "./test-databases.js";

/**
 * The statements `combined-statements.ts` sends on PostgreSQL in place of two or three, and the
 * routing's one read of a turn and the parked ones: on `pg` directly they must answer exactly
 * as through Prisma's `$queryRaw` (twin databases, as tests/storage/raw-sql.postgres.test.ts).
 */
describePostgres("combined statements on PostgreSQL", (serverUrl) => {
  const { same, message } = twinDatabases(serverUrl);

  it("answers alike: a message with the count's reset, a settled turn's end with its event, an event to deliver with its records, a routed turn with the parked ones", async () => {
    const chat = "telegram::7:";
    await same((s) => s.store.ensureChat(chat, "w", "telegram"));
    await same((s) => s.store.setAgentTurns(chat, 5));
    await same((s) => s.combined.addMessageAndReset(message("m1", chat, { platformMessageId: "p1" })));
    await same((s) => s.store.getChat(chat));
    await expect(same((s) => s.combined.addMessageAndReset(message("m1", chat)))).rejects.toSatisfy(isUniqueViolation);
    await same((s) => s.combined.addMessageAndReset(message("m2", "telegram::nobody:")));
    const deadlineAt = new Date("2026-03-04T06:00:00.000Z");
    const turn = { id: "t1", chatKey: chat, agent: "alice", triggerMessageId: "m1", startedById: "u1", deadlineAt };
    await same((s) => s.store.createTurn(turn));
    const ended = {
      type: "turn-ended",
      chat: parseChatKey(chat),
      agent: "alice",
      turnId: "t1",
      reason: "answered",
      startedAt: new Date("2026-03-04T05:06:07.089Z"),
    } as const;
    const end = { endReason: "answered", endedAt: new Date("2026-03-04T05:07:00.000Z") };
    await same((s) =>
      s.store.addModelStep(message("a1", chat, { author: { kind: "agent", id: "alice", name: "Alice" } }), [
        {
          id: "c1",
          chatKey: chat,
          agent: "alice",
          turnId: "t1",
          messageId: "a1",
          step: 1,
          providerCallId: "p",
          name: "x",
          argumentsJson: "{}",
        },
      ]),
    );
    expect(await same((s) => s.combined.endSettledTurnAtOnce("t1", end, ended))).toEqual({ open: true });
    await same((s) => s.store.setToolCallState("c1", "done"));
    const settled = await same((s) => s.combined.endSettledTurnAtOnce("t1", end, ended));
    expect(settled).toMatchObject({ open: false, stored: { ...ended, seq: expect.any(Number) } });
    await same((s) => s.store.getTurn("t1"));
    await same((s) => s.store.listEvents(chat));
    expect(await same((s) => s.combined.endSettledTurnAtOnce("t1", end, ended))).toEqual({ open: false });
    expect(await same((s) => s.combined.endSettledTurnAtOnce("none", end, ended))).toEqual({ open: false });
    const answer = await same((s) => s.store.getMessage("a1"));
    const event = await same((s) =>
      s.store.appendEvent(chat, { type: "message", chat: parseChatKey(chat), message: answer as never }),
    );
    await same((s) => s.combined.eventToDeliver(event.seq));
    await same((s) =>
      s.store.recordOutbound(
        { chatKey: chat, refKind: "draft", refId: "a1", platformMessageIds: ["d1", "d2"] },
        { chatKey: chat, refKind: "event", refId: String(event.seq), platformMessageIds: ["m1"] },
      ),
    );
    expect((await same((s) => s.combined.eventToDeliver(event.seq)))?.recorded).toHaveLength(2);
    await same((s) => s.combined.eventToDeliver(event.seq - 1));
    await same((s) => s.combined.eventToDeliver(event.seq + 100));
    await same((s) => s.store.updateTurn("t1", { state: "parked" }));
    await same((s) => s.store.routedTurn(chat, "alice", "t1"));
    await same((s) => s.store.routedTurn(chat, "alice", "t9"));
  });
});
