import { describe, expect, it } from "vitest";
import { parseChatKey } from "../../src/world/chat-ref.js";
import type { WorldEvent } from "../../src/world/events.js";
import { contractBuilders, type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

/**
 * The Store's writes that PostgreSQL makes one statement and SQLite several
 * (`combined-statements.ts`): the same outcome on both.
 */
export function storeCombinedContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, combined writes`, () => {
    const store = storeOpenedFor(open);

    const { unique, chatKey, message, toolCall } = contractBuilders(() => store);
    const endedAt = new Date("2030-01-01T00:01:00.000Z");

    async function runningTurn(chat = chatKey()) {
      return store.createTurn({
        id: unique("turn"),
        chatKey: chat,
        agent: "alice",
        triggerMessageId: "m1",
        startedById: "u1",
        deadlineAt: new Date("2030-01-01T00:00:00.000Z"),
      });
    }

    const endedEvent = (chat: string, turnId: string): WorldEvent => ({
      type: "turn-ended",
      chat: parseChatKey(chat),
      agent: "alice",
      turnId,
      reason: "answered",
      startedAt: new Date("2030-01-01T00:00:00.000Z"),
    });

    it("stores a person's message and sets the chat's agent-turn count back to 0 with it", async () => {
      const chat = chatKey();
      await store.ensureChat(chat, "team", "telegram");
      await store.setAgentTurns(chat, 3);
      const stored = await store.addMessage(message(chat, { id: unique("msg") }), { resetAgentTurns: true });
      expect(await store.getMessage(stored.id)).toEqual(stored);
      expect((await store.getChat(chat))?.agentTurnsSinceHuman).toBe(0);
      // With files (a transaction of its own on both databases) the same.
      await store.setAgentTurns(chat, 2);
      const withFile = await store.addMessage(
        message(chat, { files: [{ name: "a.txt", mediaType: "text/plain", size: 1, bytes: new Uint8Array([65]) }] }),
        { resetAgentTurns: true },
      );
      expect(withFile.fileCount).toBe(1);
      expect((await store.getChat(chat))?.agentTurnsSinceHuman).toBe(0);
    });

    it("resets nothing when the message exists already, and refuses a chat that does not exist", async () => {
      const chat = chatKey();
      await store.ensureChat(chat, "team", "telegram");
      const first = message(chat);
      await store.addMessage(first, { resetAgentTurns: true });
      await store.setAgentTurns(chat, 4);
      await expect(store.addMessage(first, { resetAgentTurns: true })).rejects.toMatchObject({
        code: "storage.conflict",
      });
      expect((await store.getChat(chat))?.agentTurnsSinceHuman).toBe(4);
      await expect(store.addMessage(message(chatKey()), { resetAgentTurns: true })).rejects.toThrow(/does not exist/);
    });

    it("ends a turn with nothing open and appends its event, once", async () => {
      const chat = chatKey();
      const turn = await runningTurn(chat);
      const event = endedEvent(chat, turn.id);
      const settled = await store.endSettledTurn(turn.id, { endReason: "answered", endedAt }, event);
      expect(settled.open).toBe(false);
      const stored = settled.open ? undefined : settled.stored;
      expect(stored).toMatchObject({ ...event, seq: expect.any(Number) });
      expect(stored?.createdAt).toBeInstanceOf(Date);
      expect(await store.getEvent(stored?.seq ?? -1)).toEqual(stored);
      expect(await store.getTurn(turn.id)).toMatchObject({ state: "ended", endReason: "answered", endedAt });
      expect(await store.endSettledTurn(turn.id, { endReason: "again", endedAt }, event)).toEqual({ open: false });
      expect(await store.endSettledTurn(unique("turn"), { endReason: "answered", endedAt }, event)).toEqual({
        open: false,
      });
      expect((await store.listEvents(chat)).map((listed) => listed.seq)).toEqual([stored?.seq]);
    });

    it("ends once when two ends race: one gets the event", async () => {
      const chat = chatKey();
      const turn = await runningTurn(chat);
      const event = endedEvent(chat, turn.id);
      const ends = await Promise.all([
        store.endSettledTurn(turn.id, { endReason: "answered", endedAt }, event),
        store.endSettledTurn(turn.id, { endReason: "answered", endedAt }, event),
      ]);
      expect(ends.filter((end) => !end.open && end.stored !== undefined)).toHaveLength(1);
      expect(await store.listEvents(chat)).toHaveLength(1);
    });

    it("leaves a turn with a call without its result as it is, and says so", async () => {
      const chat = chatKey();
      const turn = await runningTurn(chat);
      const step = await store.addModelStep(
        message(chat, { author: { kind: "agent", id: "alice", name: "alice" }, turnId: turn.id }),
        [toolCall(chat, turn.id, "placeholder")],
      );
      const event = endedEvent(chat, turn.id);
      expect(await store.endSettledTurn(turn.id, { endReason: "answered", endedAt }, event)).toEqual({ open: true });
      expect((await store.getTurn(turn.id))?.state).toBe("running");
      expect(await store.listEvents(chat)).toEqual([]);
      await store.setToolCallState(step.calls[0]?.id ?? "", "done");
      const settled = await store.endSettledTurn(turn.id, { endReason: "answered", endedAt }, event);
      expect(settled.open === false && settled.stored !== undefined).toBe(true);
    });

    it("reads an event to deliver with what is recorded of it, its message's and its draft's ids", async () => {
      const chat = chatKey();
      const stored = await store.addMessage(message(chat, { author: { kind: "agent", id: "alice", name: "alice" } }));
      const event = await store.appendEvent(chat, { type: "message", chat: parseChatKey(chat), message: stored });
      expect(await store.eventToDeliver(event.seq)).toEqual({ event, recorded: [] });
      const other = await store.appendEvent(chat, endedEvent(chat, "t"));
      await store.recordOutbound(
        { chatKey: chat, refKind: "draft", refId: stored.id, platformMessageIds: ["d1", "d2"] },
        { chatKey: chat, refKind: "message", refId: stored.id, platformMessageIds: ["m1"] },
        { chatKey: chat, refKind: "event", refId: String(event.seq), platformMessageIds: ["m1"] },
        { chatKey: chat, refKind: "event", refId: String(other.seq), platformMessageIds: ["x"] },
        { chatKey: chat, refKind: "files", refId: stored.id, platformMessageIds: ["f"] },
      );
      const read = await store.eventToDeliver(event.seq);
      expect(read?.event).toEqual(event);
      expect(read?.recorded).toEqual(
        await store.getOutbounds([
          { refKind: "event", refId: String(event.seq) },
          { refKind: "message", refId: stored.id },
          { refKind: "draft", refId: stored.id },
        ]),
      );
      expect(read?.recorded.map((record) => record.refKind).sort()).toEqual(["draft", "event", "message"]);
      expect(await store.eventToDeliver(other.seq)).toEqual({
        event: other,
        recorded: [{ chatKey: chat, refKind: "event", refId: String(other.seq), platformMessageIds: ["x"] }],
      });
      expect(await store.eventToDeliver(other.seq + 1000)).toBeUndefined();
    });

    it("reads the turn routing would start and the agent's parked turns in the chat at once", async () => {
      const chat = chatKey();
      const base = { chatKey: chat, agent: "alice", triggerMessageId: "m", startedById: "u1" };
      const deadlineAt = new Date("2030-01-01T00:00:00.000Z");
      const id = unique("turn");
      expect(await store.routedTurn(chat, "alice", id)).toEqual({ existing: undefined, parked: [] });
      const parked = await store.createTurn({ ...base, id: unique("turn"), state: "parked", deadlineAt });
      await store.createTurn({ ...base, id: unique("turn"), deadlineAt });
      await store.createTurn({ ...base, id: unique("turn"), agent: "bob", state: "parked", deadlineAt });
      await store.createTurn({ ...base, id: unique("turn"), chatKey: chatKey(), state: "parked", deadlineAt });
      expect(await store.routedTurn(chat, "alice", id)).toEqual({ existing: undefined, parked: [parked] });
      const routed = await store.createTurn({ ...base, id, deadlineAt });
      expect(await store.routedTurn(chat, "alice", id)).toEqual({ existing: routed, parked: [parked] });
      await store.updateTurn(id, { state: "parked" });
      const both = await store.routedTurn(chat, "alice", id);
      expect(both.existing?.state).toBe("parked");
      expect(both.parked.map((turn) => turn.id)).toEqual(
        (await store.listTurns({ chatKey: chat, agent: "alice", states: ["parked"] })).map((turn) => turn.id),
      );
    });
  });
}
