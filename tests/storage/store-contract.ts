import { describe, expect, it } from "vitest";
import type { WorldEvent } from "../../src/world/events.js";
import { contractBuilders, type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

export type { StoreFixture } from "./store-contract-fixtures.js";

/**
 * The Store contract (chats, messages, events and turns). Every implementation (SQLite, PostgreSQL) must pass it. Tests
 * share one database per file and keep apart by unique ids.
 */
export function storeContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, chats, messages, events and turns`, () => {
    const store = storeOpenedFor(open);

    const { unique, chatKey, message } = contractBuilders(() => store);

    describe("chats", () => {
      it("creates a chat once and returns the stored one after, without rebinding it", async () => {
        const key = chatKey();
        expect(await store.getChat(key)).toBeUndefined();
        const created = await store.ensureChat(key, "team", "telegram");
        expect(created).toMatchObject({
          key,
          world: "team",
          platform: "telegram",
          agentTurnsSinceHuman: 0,
          sessionEpoch: 0,
        });
        expect(created.createdAt).toBeInstanceOf(Date);
        const again = await store.ensureChat(key, "other", "telegram");
        expect(again).toEqual(created);
        expect(await store.getChat(key)).toEqual(created);
      });

      it("tells the world a chat is bound to, and that an unbound chat has none until it is bound", async () => {
        const key = chatKey();
        expect(await store.chatWorld(key)).toBeUndefined();
        await store.ensureChat(key, "team", "telegram");
        expect(await store.chatWorld(key)).toBe("team");
        await store.ensureChat(key, "other", "telegram");
        expect(await store.chatWorld(key)).toBe("team");
      });

      it("survives concurrent ensureChat calls for one key", async () => {
        const key = chatKey();
        const results = await Promise.all(Array.from({ length: 10 }, () => store.ensureChat(key, "team", "slack")));
        expect(new Set(results.map((chat) => chat.createdAt.getTime())).size).toBe(1);
      });

      it("counts agent turns atomically and resets the count", async () => {
        const key = chatKey();
        await store.ensureChat(key, "team", "telegram");
        const counts = await Promise.all(Array.from({ length: 20 }, () => store.incrementAgentTurns(key)));
        expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
        expect((await store.getChat(key))?.agentTurnsSinceHuman).toBe(20);
        expect((await store.setAgentTurns(key, 0)).agentTurnsSinceHuman).toBe(0);
        expect(await store.incrementAgentTurns(key)).toBe(1);
      });

      it("refuses counters of an unknown chat", async () => {
        await expect(store.incrementAgentTurns(chatKey())).rejects.toThrow(/does not exist/);
        await expect(store.setAgentTurns(chatKey(), 3)).rejects.toThrow(/does not exist/);
        await expect(store.resetSession(chatKey())).rejects.toThrow(/does not exist/);
      });

      it("starts a new session epoch on reset", async () => {
        const key = chatKey();
        await store.ensureChat(key, "team", "discord");
        expect(await store.resetSession(key)).toBe(1);
        expect(await store.resetSession(key)).toBe(2);
        expect((await store.getChat(key))?.sessionEpoch).toBe(2);
      });
    });

    describe("inbound dedupe", () => {
      it("claims a key the first time only", async () => {
        const key = unique("inbound");
        expect(await store.hasInboundKey(key)).toBe(false);
        expect(await store.claimInboundKey(key)).toBe(true);
        expect(await store.hasInboundKey(key)).toBe(true);
        expect(await store.claimInboundKey(key)).toBe(false);
      });

      it("lets exactly one of many concurrent claims win", async () => {
        const key = unique("inbound");
        const results = await Promise.all(Array.from({ length: 10 }, () => store.claimInboundKey(key)));
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describe("messages", () => {
      it("stores a message's files with it: bytes, types, refusals without bytes, in order", async () => {
        const chat = chatKey();
        const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255, 1]);
        const stored = await store.addMessage(
          message(chat, {
            text: "what does this show?",
            files: [
              { name: "photo-1.png", mediaType: "image/png", size: png.length, bytes: png },
              { name: "huge.bin", mediaType: "application/octet-stream", size: 31_457_280, refusal: "too-big" },
            ],
          }),
        );
        expect(stored.fileCount).toBe(2);
        expect((await store.getMessage(stored.id))?.fileCount).toBe(2);
        expect((await store.listMessages(chat, { latest: 5 }))[0]?.fileCount).toBe(2);
        const files = await store.messageFiles(stored.id);
        expect(files).toEqual([
          { name: "photo-1.png", mediaType: "image/png", size: png.length, bytes: png },
          { name: "huge.bin", mediaType: "application/octet-stream", size: 31_457_280, refusal: "too-big" },
        ]);
        const plain = await store.addMessage(message(chat));
        expect(plain.fileCount).toBeUndefined();
        expect(await store.messageFiles(plain.id)).toEqual([]);
      });

      it("stores no files when the message is a duplicate (all or nothing)", async () => {
        const chat = chatKey();
        const first = await store.addMessage(message(chat));
        await expect(
          store.addMessage(
            message(chat, {
              id: first.id,
              files: [{ name: "a.txt", mediaType: "text/plain", size: 1, bytes: Uint8Array.from([65]) }],
            }),
          ),
        ).rejects.toThrow();
        expect(await store.messageFiles(first.id)).toEqual([]);
      });

      it("stores every field and reads it back", async () => {
        const chat = chatKey();
        const createdAt = new Date("2026-01-02T03:04:05.678Z");
        const stored = await store.addMessage(
          message(chat, {
            author: { kind: "agent", id: "alice", name: "alice" },
            text: "Done: `ls` shows 3 files ✓",
            platformMessageId: "1700.01",
            replyToId: "1699.99",
            turnId: "turn-1",
            provider: "openai",
            model: "gpt-4.1",
            providerFields: { id: "chatcmpl-1", nested: { values: [1, "two", null] } },
            raw: { update_id: 5 },
            createdAt,
          }),
        );
        expect(stored.seq).toBeGreaterThan(0);
        expect(stored).toMatchObject({
          chatKey: chat,
          author: { kind: "agent", id: "alice", name: "alice" },
          text: "Done: `ls` shows 3 files ✓",
          platformMessageId: "1700.01",
          replyToId: "1699.99",
          turnId: "turn-1",
          provider: "openai",
          model: "gpt-4.1",
          providerFields: { id: "chatcmpl-1", nested: { values: [1, "two", null] } },
        });
        expect(stored.createdAt.toISOString()).toBe(createdAt.toISOString());
        expect(await store.getMessage(stored.id)).toEqual(stored);
      });

      it("replaces a message's platform payload with a marker, keeping the message; an unknown id is no error", async () => {
        const stored = await store.addMessage(message(chatKey(), { raw: { update_id: 7, secret: "payload" } }));
        await store.omitMessageRaw(stored.id, "rate-limited");
        expect(await store.getMessage(stored.id)).toEqual(stored);
        await expect(store.omitMessageRaw(unique("missing"), "rate-limited")).resolves.toBeUndefined();
      });

      it("omits optional fields that were not given", async () => {
        const stored = await store.addMessage(message(chatKey()));
        expect(Object.keys(stored).sort()).toEqual(["author", "chatKey", "createdAt", "id", "seq", "text"]);
        expect(await store.getMessage(unique("missing"))).toBeUndefined();
      });

      it("refuses a second message with the same id as a conflict", async () => {
        const first = message(chatKey());
        await store.addMessage(first);
        await expect(store.addMessage({ ...first, text: "again" })).rejects.toMatchObject({ code: "storage.conflict" });
        expect((await store.getMessage(first.id))?.text).toBe("hello");
      });

      it("lists a chat's messages in stored order and pages with afterSeq and limit", async () => {
        const chat = chatKey();
        const other = chatKey();
        const ids: string[] = [];
        for (let index = 0; index < 5; index++) {
          const stored = await store.addMessage(message(chat, { text: `m${index}` }));
          ids.push(stored.id);
          await store.addMessage(message(other));
        }
        const all = await store.listMessages(chat);
        expect(all.map((item) => item.id)).toEqual(ids);
        const page = await store.listMessages(chat, { afterSeq: all[1]?.seq ?? 0, limit: 2 });
        expect(page.map((item) => item.text)).toEqual(["m2", "m3"]);
        const newest = await store.listMessages(chat, { latest: 2 });
        expect(newest.map((item) => item.text)).toEqual(["m3", "m4"]);
        expect(await store.listMessages(chatKey())).toEqual([]);
      });

      it("reads up to two messages by id at once, leaving out ids with no message", async () => {
        const chat = chatKey();
        const first = await store.addMessage(message(chat, { text: "one" }));
        const second = await store.addMessage(message(chat, { text: "two" }));
        expect((await store.getMessages([second.id, first.id])).map((item) => item.text)).toEqual(["one", "two"]);
        expect(await store.getMessages([first.id])).toEqual([first]);
        expect((await store.getMessages([unique("msg"), second.id])).map((item) => item.id)).toEqual([second.id]);
        expect(await store.getMessages([])).toEqual([]);
      });

      it("keeps the newest messages right while the chat grows between reads", async () => {
        const chat = chatKey();
        const texts: string[] = [];
        const add = async (count: number) => {
          for (let index = 0; index < count; index++) {
            const text = `n${texts.length}`;
            texts.push(text);
            await store.addMessage(message(chat, { text }));
          }
        };
        expect(await store.listMessages(chat, { latest: 3 })).toEqual([]);
        await add(2);
        expect((await store.listMessages(chat, { latest: 3 })).map((item) => item.text)).toEqual(texts);
        await add(4);
        expect((await store.listMessages(chat, { latest: 3 })).map((item) => item.text)).toEqual(texts.slice(-3));
        expect((await store.listMessages(chat, { latest: 5 })).map((item) => item.text)).toEqual(texts.slice(-5));
        await add(600);
        const newest = await store.listMessages(chat, { latest: 500 });
        expect(newest.map((item) => item.text)).toEqual(texts.slice(-500));
        await add(1);
        expect((await store.listMessages(chat, { latest: 501 })).map((item) => item.text)).toEqual(texts.slice(-501));
        expect((await store.listMessages(chat, { latest: 2 })).map((item) => item.text)).toEqual(texts.slice(-2));
        // A caller changing the array it got changes nothing for the next one.
        newest.length = 0;
        expect(await store.listMessages(chat, { latest: 500 })).toHaveLength(500);
      });

      it("finds a message by its platform id within its chat", async () => {
        const chat = chatKey();
        const stored = await store.addMessage(message(chat, { platformMessageId: "42" }));
        await store.addMessage(message(chatKey(), { platformMessageId: "42" }));
        expect((await store.findMessageByPlatformId(chat, "42"))?.id).toBe(stored.id);
        expect(await store.findMessageByPlatformId(chat, "43")).toBeUndefined();
      });
    });

    describe("event log", () => {
      it("appends events with increasing seq and reads them back with their dates", async () => {
        const chat = chatKey();
        const ref = { platform: "telegram" as const, channel: chat };
        const stored = await store.addMessage(message(chat, { createdAt: new Date("2026-05-01T10:00:00.000Z") }));
        const events: WorldEvent[] = [
          { type: "message", chat: ref, message: stored },
          {
            type: "approval-requested",
            chat: ref,
            card: {
              approvalId: "a1",
              shortId: "7f3a",
              agent: "alice",
              tool: "shell_cmd",
              argumentsJson: '{"command":"ls"}',
              argumentsPreview: "ls",
              reason: "needs approval",
              requestedFor: "Ana",
              choices: ["once", "session", "deny"],
              expiresAt: new Date("2026-05-01T10:30:00.000Z"),
            },
          },
          { type: "turn-ended", chat: ref, agent: "alice", turnId: "t1", reason: "answered" },
        ];
        const appended = [];
        for (const event of events) appended.push(await store.appendEvent(chat, event));
        expect(appended[0]?.seq).toBeLessThan(appended[1]?.seq ?? 0);
        expect(appended[1]?.seq).toBeLessThan(appended[2]?.seq ?? 0);

        const listed = await store.listEvents(chat);
        expect(listed).toEqual(appended);
        const first = listed[0];
        if (first?.type !== "message") throw new Error("expected a message event");
        expect(first.message.createdAt).toBeInstanceOf(Date);
        expect(first.message.createdAt.toISOString()).toBe("2026-05-01T10:00:00.000Z");
        const second = await store.getEvent(appended[1]?.seq ?? 0);
        if (second?.type !== "approval-requested") throw new Error("expected an approval event");
        expect(second.card.expiresAt).toEqual(new Date("2026-05-01T10:30:00.000Z"));
        expect(second.createdAt).toBeInstanceOf(Date);

        expect(
          (await store.listEvents(chat, { afterSeq: appended[0]?.seq ?? 0, limit: 1 })).map((event) => event.type),
        ).toEqual(["approval-requested"]);
        expect(await store.getEvent(-1)).toBeUndefined();
        expect((await store.listRecentEvents(2)).map((event) => event.seq)).toEqual([
          appended[1]?.seq,
          appended[2]?.seq,
        ]);
      });
    });

    describe("turns", () => {
      it("creates a running turn at step 0 and updates each field", async () => {
        const chat = chatKey();
        const deadlineAt = new Date("2030-01-01T00:00:00.000Z");
        const turn = await store.createTurn({
          id: unique("turn"),
          chatKey: chat,
          agent: "alice",
          triggerMessageId: "m1",
          startedById: "u1",
          deadlineAt,
        });
        expect(turn).toMatchObject({ chatKey: chat, agent: "alice", state: "running", step: 0, deadlineAt });
        expect(turn.endReason).toBeUndefined();
        expect(await store.getTurn(turn.id)).toEqual(turn);

        expect((await store.updateTurn(turn.id, { state: "parked", step: 2 })).state).toBe("parked");
        const later = new Date("2030-01-01T00:05:00.000Z");
        expect((await store.updateTurn(turn.id, { deadlineAt: later })).deadlineAt).toEqual(later);
        const endedAt = new Date("2030-01-01T00:01:00.000Z");
        const ended = await store.updateTurn(turn.id, { state: "ended", endReason: "answered", endedAt });
        expect(ended).toMatchObject({ state: "ended", step: 2, endReason: "answered", endedAt, deadlineAt: later });
        expect(await store.getTurn(unique("turn"))).toBeUndefined();
      });

      it("creates a turn counted in its chat, and a turn that exists counts nothing", async () => {
        const key = chatKey();
        await store.ensureChat(key, "team", "telegram");
        const turn = {
          id: unique("turn"),
          chatKey: key,
          agent: "alice",
          triggerMessageId: "m1",
          startedById: "u1",
          deadlineAt: new Date("2030-01-01T00:00:00.000Z"),
        };
        const created = await store.createTurn(turn, { countInChat: true });
        expect(created).toMatchObject({ id: turn.id, state: "running", step: 0 });
        expect(await store.getTurn(turn.id)).toEqual(created);
        expect((await store.getChat(key))?.agentTurnsSinceHuman).toBe(1);
        await expect(store.createTurn(turn, { countInChat: true })).rejects.toThrow(/already exists/);
        await store.createTurn({ ...turn, id: unique("turn") });
        expect((await store.getChat(key))?.agentTurnsSinceHuman).toBe(1);
        await expect(
          store.createTurn({ ...turn, id: unique("turn"), chatKey: chatKey() }, { countInChat: true }),
        ).rejects.toThrow(/does not exist/);
      });

      it("ends a turn once: the first end gets the turn, a second or concurrent one gets nothing", async () => {
        const turn = await store.createTurn({
          id: unique("turn"),
          chatKey: chatKey(),
          agent: "alice",
          triggerMessageId: "m1",
          startedById: "u1",
          deadlineAt: new Date("2030-01-01T00:00:00.000Z"),
        });
        const endedAt = new Date("2030-01-01T00:01:00.000Z");
        const ends = await Promise.all([
          store.endTurn(turn.id, { endReason: "answered", endedAt }),
          store.endTurn(turn.id, { endReason: "stopped", endedAt }),
        ]);
        const won = ends.filter((end) => end !== undefined);
        expect(won).toHaveLength(1);
        expect(await store.getTurn(turn.id)).toEqual(won[0]);
        expect(won[0]).toMatchObject({ state: "ended", endedAt });
        expect(await store.endTurn(turn.id, { endReason: "answered", endedAt })).toBeUndefined();
        expect(await store.endTurn(unique("turn"), { endReason: "answered", endedAt })).toBeUndefined();
      });

      it("refuses to update an unknown turn", async () => {
        await expect(store.updateTurn(unique("turn"), { state: "ended" })).rejects.toThrow(/does not exist/);
      });

      it("lists turns by chat, agent and state", async () => {
        const chat = chatKey();
        const base = {
          chatKey: chat,
          triggerMessageId: "m",
          startedById: "u",
          deadlineAt: new Date("2030-01-01T00:00:00Z"),
        };
        const a = await store.createTurn({ ...base, id: unique("turn"), agent: "alice" });
        const b = await store.createTurn({ ...base, id: unique("turn"), agent: "bob", state: "parked" });
        await store.createTurn({ ...base, id: unique("turn"), chatKey: chatKey(), agent: "alice" });
        expect((await store.listTurns({ chatKey: chat })).map((turn) => turn.id).sort()).toEqual([a.id, b.id].sort());
        expect((await store.listTurns({ chatKey: chat, agent: "bob" })).map((turn) => turn.id)).toEqual([b.id]);
        expect((await store.listTurns({ chatKey: chat, states: ["running"] })).map((turn) => turn.id)).toEqual([a.id]);
        expect(await store.listTurns({ chatKey: chat, states: [] })).toEqual([]);
        // A channel's chat and its threads' chats (their keys extend the channel's).
        const inThread = await store.createTurn({
          ...base,
          id: unique("turn"),
          chatKey: `${chat}1700.1`,
          agent: "bob",
        });
        expect((await store.listTurns({ chatKeyPrefix: chat })).map((turn) => turn.id).sort()).toEqual(
          [a.id, b.id, inThread.id].sort(),
        );
        expect((await store.listTurns({ chatKeyPrefix: `${chat}1700` })).map((turn) => turn.id)).toEqual([inThread.id]);
      });

      it("marks an unfinished turn stopped once; an ended or unknown turn is not marked", async () => {
        const base = {
          chatKey: chatKey(),
          agent: "alice",
          triggerMessageId: "m",
          startedById: "u",
          deadlineAt: new Date("2030-01-01T00:00:00Z"),
        };
        const parked = await store.createTurn({ ...base, id: unique("turn"), state: "parked" });
        const ana = { id: "u1", name: "Ana" };
        expect(await store.markTurnStopped(parked.id, ana)).toMatchObject({ state: "parked", stoppedBy: ana });
        expect(await store.markTurnStopped(parked.id, { id: "u2", name: "Bo" })).toBeUndefined();
        expect((await store.getTurn(parked.id))?.stoppedBy).toEqual(ana);

        const ended = await store.createTurn({ ...base, id: unique("turn"), state: "ended" });
        expect(await store.markTurnStopped(ended.id, ana)).toBeUndefined();
        expect((await store.getTurn(ended.id))?.stoppedBy).toBeUndefined();
        expect(await store.markTurnStopped(unique("turn"), ana)).toBeUndefined();
      });

      it("reads the stop markers of many turns at once (the stop poll), over several statements", async () => {
        const base = {
          chatKey: chatKey(),
          agent: "alice",
          triggerMessageId: "m",
          startedById: "u",
          deadlineAt: new Date("2030-01-01T00:00:00Z"),
        };
        const turns = [];
        for (let index = 0; index < 120; index++)
          turns.push(await store.createTurn({ ...base, id: unique("turn"), state: "running" }));
        const ana = { id: "u1", name: "Ana" };
        const stopped = [turns[3], turns[64], turns[119]].map((turn) => turn?.id ?? "");
        for (const id of stopped) await store.markTurnStopped(id, ana);
        const ids = [...turns.map((turn) => turn.id), unique("turn")];
        const found = await store.stoppedTurns(ids);
        expect(found.map((turn) => turn.id).sort()).toEqual([...stopped].sort());
        expect(found.every((turn) => turn.stoppedBy.id === "u1" && turn.stoppedBy.name === "Ana")).toBe(true);
        expect(await store.stoppedTurns([])).toEqual([]);
        expect(await store.stoppedTurns([turns[0]?.id ?? ""])).toEqual([]);
      });
    });
  });
}
