import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewApproval, NewMessage, NewToolCall } from "../../src/storage/records.js";
import type { Store } from "../../src/storage/store.js";
import type { WorldEvent } from "../../src/world/events.js";

/** What a contract run needs: a store on a fresh, migrated database, and a way to dispose of it. */
export interface StoreFixture {
  store: Store;
  close(): Promise<void>;
}

/**
 * The Store contract. Every implementation (SQLite, PostgreSQL) must pass it. Tests share one
 * database per file and keep apart by unique ids.
 */
export function storeContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}`, () => {
    let fixture: StoreFixture;
    let store: Store;

    beforeAll(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterAll(async () => {
      await fixture?.close();
    });

    const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
    const chatKey = () => `telegram::${unique("chat")}:`;

    function message(chat: string, overrides: Partial<NewMessage> = {}): NewMessage {
      return {
        id: unique("msg"),
        chatKey: chat,
        author: { kind: "human", id: "u1", name: "Ana" },
        text: "hello",
        ...overrides,
      };
    }

    function toolCall(
      chat: string,
      turnId: string,
      messageId: string,
      overrides: Partial<NewToolCall> = {},
    ): NewToolCall {
      return {
        id: unique("call"),
        chatKey: chat,
        agent: "alice",
        turnId,
        messageId,
        step: 1,
        providerCallId: unique("provider"),
        name: "shell_cmd",
        argumentsJson: '{"command":"ls"}',
        ...overrides,
      };
    }

    async function storedCall(chat = chatKey()) {
      const turnId = unique("turn");
      const step = await store.addModelStep(message(chat, { author: { kind: "agent", id: "alice", name: "alice" } }), [
        toolCall(chat, turnId, "placeholder"),
      ]);
      const call = step.calls[0];
      if (!call) throw new Error("no call stored");
      return call;
    }

    function approval(chat: string, toolCallId: string, overrides: Partial<NewApproval> = {}): NewApproval {
      return {
        id: unique("approval"),
        shortId: unique("s"),
        chatKey: chat,
        world: "team",
        agent: "alice",
        turnId: unique("turn"),
        toolCallId,
        requestedFor: "u1",
        reason: "shell_cmd needs approval",
        expiresAt: new Date("2030-01-01T00:30:00.000Z"),
        ...overrides,
      };
    }

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
        expect(await store.claimInboundKey(key)).toBe(true);
        expect(await store.claimInboundKey(key)).toBe(false);
      });

      it("lets exactly one of many concurrent claims win", async () => {
        const key = unique("inbound");
        const results = await Promise.all(Array.from({ length: 10 }, () => store.claimInboundKey(key)));
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describe("messages", () => {
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
      });
    });

    describe("tool calls and results", () => {
      it("stores a model step's message and calls together", async () => {
        const chat = chatKey();
        const turnId = unique("turn");
        const response = message(chat, { author: { kind: "agent", id: "alice", name: "alice" }, turnId });
        const calls = [
          toolCall(chat, turnId, response.id, { provider: "anthropic", providerFields: { signature: "abc" } }),
          toolCall(chat, turnId, response.id, { name: "notes__add", argumentsJson: "{}", state: "awaiting-approval" }),
        ];
        const step = await store.addModelStep(response, calls);
        expect(step.message.id).toBe(response.id);
        expect(step.calls.map((call) => call.id)).toEqual(calls.map((call) => call.id));
        expect(step.calls[0]).toMatchObject({
          state: "pending",
          provider: "anthropic",
          providerFields: { signature: "abc" },
        });
        expect(step.calls[1]).toMatchObject({ state: "awaiting-approval", name: "notes__add" });
        expect(step.calls[0]?.seq).toBeLessThan(step.calls[1]?.seq ?? 0);
        expect(await store.getToolCall(calls[0]?.id ?? "")).toEqual(step.calls[0]);
        expect(await store.getMessage(response.id)).toEqual(step.message);
      });

      it("stores nothing of a model step when one part is refused", async () => {
        const chat = chatKey();
        const existing = await storedCall(chat);
        const response = message(chat);
        const duplicate = toolCall(chat, "t", response.id, { id: existing.id });
        await expect(store.addModelStep(response, [toolCall(chat, "t", response.id), duplicate])).rejects.toMatchObject(
          {
            code: "storage.conflict",
          },
        );
        expect(await store.getMessage(response.id)).toBeUndefined();
      });

      it("lists tool calls by turn, step, chat and agent", async () => {
        const chat = chatKey();
        const turnId = unique("turn");
        const first = await store.addModelStep(message(chat), [
          toolCall(chat, turnId, "m1"),
          toolCall(chat, turnId, "m1"),
        ]);
        const second = await store.addModelStep(message(chat), [
          toolCall(chat, turnId, "m2", { step: 2 }),
          toolCall(chat, turnId, "m2", { step: 2, agent: "bob" }),
        ]);
        const ids = (list: { id: string }[]) => list.map((item) => item.id);
        expect(ids(await store.listToolCalls({ turnId }))).toEqual([...ids(first.calls), ...ids(second.calls)]);
        expect(ids(await store.listToolCalls({ turnId, step: 2 }))).toEqual(ids(second.calls));
        expect(ids(await store.listToolCalls({ chatKey: chat, agent: "bob" }))).toEqual([second.calls[1]?.id]);
        expect(await store.listToolCalls({ turnId: unique("turn") })).toEqual([]);
      });

      it("changes a call's state and refuses an unknown call", async () => {
        const call = await storedCall();
        await store.setToolCallState(call.id, "running");
        expect((await store.getToolCall(call.id))?.state).toBe("running");
        await expect(store.setToolCallState(unique("call"), "done")).rejects.toThrow(/does not exist/);
      });

      it("stores one result per call and marks the call done", async () => {
        const call = await storedCall();
        expect(await store.addToolResult({ toolCallId: call.id, kind: "ok", content: "3 files" })).toBe(true);
        expect(await store.addToolResult({ toolCallId: call.id, kind: "timeout", content: "timeout: late" })).toBe(
          false,
        );
        expect(await store.getToolResult(call.id)).toMatchObject({
          toolCallId: call.id,
          kind: "ok",
          content: "3 files",
        });
        expect((await store.getToolResult(call.id))?.createdAt).toBeInstanceOf(Date);
        expect((await store.getToolCall(call.id))?.state).toBe("done");
        expect(await store.getToolResult(unique("call"))).toBeUndefined();
      });

      it("never stores two results when they race", async () => {
        const call = await storedCall();
        const contents = Array.from({ length: 10 }, (_, index) => `result ${index}`);
        const outcomes = await Promise.all(
          contents.map((content) => store.addToolResult({ toolCallId: call.id, kind: "ok", content })),
        );
        expect(outcomes.filter(Boolean)).toHaveLength(1);
        const winner = contents[outcomes.indexOf(true)];
        expect((await store.getToolResult(call.id))?.content).toBe(winner);
        expect(await store.listToolResults([call.id])).toHaveLength(1);
      });

      it("refuses a result for an unknown call and stores nothing", async () => {
        const id = unique("call");
        await expect(store.addToolResult({ toolCallId: id, kind: "ok", content: "x" })).rejects.toThrow(
          /does not exist/,
        );
        expect(await store.getToolResult(id)).toBeUndefined();
      });

      it("lists the results of the given calls", async () => {
        const [a, b, c] = [await storedCall(), await storedCall(), await storedCall()];
        if (!a || !b || !c) throw new Error("calls missing");
        await store.addToolResult({ toolCallId: a.id, kind: "denied", content: "denied: by Ana" });
        await store.addToolResult({ toolCallId: c.id, kind: "ok", content: "fine" });
        const results = await store.listToolResults([c.id, a.id, b.id, a.id]);
        expect(results.map((result) => result.toolCallId).sort()).toEqual([a.id, c.id].sort());
        expect(await store.listToolResults([])).toEqual([]);
      });
    });

    describe("approvals", () => {
      it("creates a pending approval and finds it by id, short id and filters", async () => {
        const chat = chatKey();
        const call = await storedCall(chat);
        const created = await store.createApproval(approval(chat, call.id, { shortId: "7f3a" }));
        expect(created).toMatchObject({ state: "pending", shortId: "7f3a", chatKey: chat, toolCallId: call.id });
        expect(created.decidedById).toBeUndefined();
        expect(created.expiresAt).toEqual(new Date("2030-01-01T00:30:00.000Z"));
        expect(await store.getApproval(created.id)).toEqual(created);
        expect(await store.getApprovalByShortId(chat, "7f3a")).toEqual(created);
        expect(await store.getApprovalByShortId(chatKey(), "7f3a")).toBeUndefined();
        expect((await store.listApprovals({ chatKey: chat, states: ["pending"] })).map((item) => item.id)).toEqual([
          created.id,
        ]);
        expect((await store.listApprovals({ turnId: created.turnId })).map((item) => item.id)).toEqual([created.id]);
        expect(await store.listApprovals({ chatKey: chat, states: ["approved"] })).toEqual([]);
      });

      it("refuses a second approval with the same short id in a chat", async () => {
        const chat = chatKey();
        await store.createApproval(approval(chat, (await storedCall(chat)).id, { shortId: "abcd" }));
        await expect(
          store.createApproval(approval(chat, (await storedCall(chat)).id, { shortId: "abcd" })),
        ).rejects.toMatchObject({ code: "storage.conflict" });
      });

      it("lets the first decision win and records it with who and when", async () => {
        const chat = chatKey();
        const created = await store.createApproval(approval(chat, (await storedCall(chat)).id));
        const at = new Date("2030-01-01T00:10:00.000Z");
        const first = await store.decideApproval(created.id, {
          state: "approved",
          choice: "session",
          actorId: "u1",
          actorName: "Ana",
          note: "looks fine",
          at,
        });
        expect(first.won).toBe(true);
        expect(first.approval).toMatchObject({
          state: "approved",
          choice: "session",
          decidedById: "u1",
          decidedByName: "Ana",
          decidedAt: at,
        });
        const second = await store.decideApproval(created.id, {
          state: "denied",
          choice: "deny",
          actorId: "u2",
          actorName: "Ben",
          at: new Date("2030-01-01T00:11:00.000Z"),
        });
        expect(second.won).toBe(false);
        expect(second.approval).toEqual(first.approval);
        expect(await store.listApprovalChanges(created.id)).toEqual([
          {
            approvalId: created.id,
            state: "approved",
            actorId: "u1",
            actorName: "Ana",
            note: "looks fine",
            createdAt: at,
          },
        ]);
      });

      it("lets exactly one of concurrent decisions win", async () => {
        const chat = chatKey();
        const created = await store.createApproval(approval(chat, (await storedCall(chat)).id));
        const deciders = Array.from({ length: 10 }, (_, index) => `user-${index}`);
        const results = await Promise.all(
          deciders.map((actorId, index) =>
            store.decideApproval(created.id, {
              state: index % 2 === 0 ? "approved" : "denied",
              choice: index % 2 === 0 ? "once" : "deny",
              actorId,
              actorName: actorId,
              at: new Date("2030-01-01T00:10:00.000Z"),
            }),
          ),
        );
        const winners = results.filter((result) => result.won);
        expect(winners).toHaveLength(1);
        const winner = deciders[results.findIndex((result) => result.won)];
        for (const result of results) expect(result.approval.decidedById).toBe(winner);
        const changes = await store.listApprovalChanges(created.id);
        expect(changes).toHaveLength(1);
        expect(changes[0]?.actorId).toBe(winner);
      });

      it("expires without a choice", async () => {
        const chat = chatKey();
        const created = await store.createApproval(approval(chat, (await storedCall(chat)).id));
        const result = await store.decideApproval(created.id, {
          state: "expired",
          actorId: "roundtable",
          actorName: "roundtable",
          at: new Date("2030-01-01T00:30:00.000Z"),
        });
        expect(result.won).toBe(true);
        expect(result.approval.state).toBe("expired");
        expect(result.approval.choice).toBeUndefined();
        expect((await store.listApprovalChanges(created.id))[0]?.note).toBeUndefined();
      });

      it("refuses a decision on an unknown approval", async () => {
        await expect(
          store.decideApproval(unique("approval"), { state: "approved", actorId: "u", actorName: "u", at: new Date() }),
        ).rejects.toMatchObject({ code: "approval.unknown" });
        expect(await store.listApprovalChanges(unique("approval"))).toEqual([]);
      });
    });

    describe("session grants", () => {
      it("holds a grant for its exact key and epoch only; granting twice is harmless", async () => {
        const key = { chatKey: chatKey(), agent: "alice", tool: "shell_cmd", argsHash: "h1", sessionEpoch: 0 };
        expect(await store.hasSessionGrant(key)).toBe(false);
        await store.addSessionGrant(key, "u1");
        await store.addSessionGrant(key, "u2");
        expect(await store.hasSessionGrant(key)).toBe(true);
        expect(await store.hasSessionGrant({ ...key, sessionEpoch: 1 })).toBe(false);
        expect(await store.hasSessionGrant({ ...key, argsHash: "h2" })).toBe(false);
        expect(await store.hasSessionGrant({ ...key, agent: "bob" })).toBe(false);
      });
    });

    describe("outbound messages", () => {
      it("records where a message landed, finds it by any part, and replaces on a second record", async () => {
        const chat = chatKey();
        const refId = unique("msg");
        await store.recordOutbound({
          chatKey: chat,
          refKind: "message",
          refId,
          platformMessageIds: ["p1", "p2", "p3"],
        });
        const expected = { chatKey: chat, refKind: "message", refId, platformMessageIds: ["p1", "p2", "p3"] };
        expect(await store.getOutbound("message", refId)).toEqual(expected);
        expect(await store.findOutboundByPlatformId(chat, "p2")).toEqual(expected);
        expect(await store.findOutboundByPlatformId(chatKey(), "p2")).toBeUndefined();
        expect(await store.getOutbound("approval", refId)).toBeUndefined();

        await store.recordOutbound({ chatKey: chat, refKind: "message", refId, platformMessageIds: ["q1"] });
        expect((await store.getOutbound("message", refId))?.platformMessageIds).toEqual(["q1"]);
        expect(await store.findOutboundByPlatformId(chat, "p2")).toBeUndefined();
      });

      it("keeps approval cards and events apart from messages with the same ref id", async () => {
        const chat = chatKey();
        const refId = unique("ref");
        await store.recordOutbound({ chatKey: chat, refKind: "approval", refId, platformMessageIds: ["card"] });
        await store.recordOutbound({ chatKey: chat, refKind: "event", refId, platformMessageIds: ["ev"] });
        expect((await store.getOutbound("approval", refId))?.platformMessageIds).toEqual(["card"]);
        expect((await store.getOutbound("event", refId))?.platformMessageIds).toEqual(["ev"]);
        expect((await store.findOutboundByPlatformId(chat, "card"))?.refKind).toBe("approval");
      });
    });

    it("answers a ping", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
