import { describe, expect, it } from "vitest";
import { contractBuilders, type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

/**
 * The Store contract (tool calls, approvals and outbound messages). Every implementation (SQLite, PostgreSQL) must pass it. Tests
 * share one database per file and keep apart by unique ids.
 */
export function storeApprovalContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, tool calls, approvals and outbound messages`, () => {
    const store = storeOpenedFor(open);

    const { unique, chatKey, message, toolCall, storedCall, approval } = contractBuilders(() => store);

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
        const byMessage = await store.listToolCalls({ chatKey: chat, messageIds: ["m2"] });
        expect(ids(byMessage)).toEqual(ids(second.calls));
        expect(await store.listToolCalls({ chatKey: chat, messageIds: [] })).toEqual([]);
        // Bounded by the oldest message's time: the same calls, found among those stored since.
        const since = { chatKey: chat, agent: "alice", messagesFrom: first.message.createdAt };
        expect(ids(await store.listToolCalls({ ...since, messageIds: ["m2"] }))).toEqual([second.calls[0]?.id]);
        expect(ids(await store.listToolCalls({ ...since, messageIds: ["m1", "m2"] }))).toEqual([
          ...ids(first.calls),
          second.calls[0]?.id,
        ]);
        const later = new Date(second.message.createdAt.getTime() + 60_000);
        expect(await store.listToolCalls({ ...since, messagesFrom: later, messageIds: ["m1", "m2"] })).toEqual([]);
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
      it("tells whether a turn has a call without its result or a pending approval", async () => {
        const call = await storedCall();
        expect(await store.turnHasOpenWork(call.turnId)).toBe(true);
        await store.addToolResult({ toolCallId: call.id, kind: "ok", content: "done" });
        expect(await store.turnHasOpenWork(call.turnId)).toBe(false);
        const pending = await store.createApproval(approval(call.chatKey, call.id, { turnId: call.turnId }));
        expect(await store.turnHasOpenWork(call.turnId)).toBe(true);
        await store.decideApproval(pending.id, {
          state: "approved",
          actorId: "u1",
          actorName: "U",
          at: new Date("2030-01-01T00:01:00.000Z"),
        });
        expect(await store.turnHasOpenWork(call.turnId)).toBe(false);
        expect(await store.turnHasOpenWork(unique("turn"))).toBe(false);
      });

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

      it("stores a decision's grant with the decision, only when the decision wins, also when already granted", async () => {
        const chat = chatKey();
        const key = { chatKey: chat, agent: "alice", tool: "shell_cmd", argsHash: "h1", sessionEpoch: 0 };
        const decision = {
          state: "approved",
          choice: "session",
          actorId: "u1",
          actorName: "Ana",
          at: new Date(),
        } as const;
        const first = await store.createApproval(approval(chat, (await storedCall(chat)).id));
        expect((await store.decideApproval(first.id, { ...decision, sessionGrant: key })).won).toBe(true);
        expect(await store.hasSessionGrant(key)).toBe(true);
        // A lost race grants nothing.
        const other = { ...key, argsHash: "h2" };
        expect((await store.decideApproval(first.id, { ...decision, sessionGrant: other })).won).toBe(false);
        expect(await store.hasSessionGrant(other)).toBe(false);
        // The same grant again (a second approval for the same call) still decides.
        const second = await store.createApproval(approval(chat, (await storedCall(chat)).id));
        expect((await store.decideApproval(second.id, { ...decision, sessionGrant: key })).won).toBe(true);
        expect((await store.getApproval(second.id))?.state).toBe("approved");
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

      it("records several refs at once (one transaction); a record with no ids forgets its ref", async () => {
        const chat = chatKey();
        const refId = unique("msg");
        await store.recordOutbound({ chatKey: chat, refKind: "draft", refId, platformMessageIds: ["d1"] });
        // The message's ids, its draft forgotten (no ids), its event delivered.
        await store.recordOutbound(
          { chatKey: chat, refKind: "message", refId, platformMessageIds: ["d1"] },
          { chatKey: chat, refKind: "draft", refId, platformMessageIds: [] },
          { chatKey: chat, refKind: "event", refId: `${refId}-event`, platformMessageIds: ["d1"] },
        );
        expect((await store.getOutbound("message", refId))?.platformMessageIds).toEqual(["d1"]);
        expect(await store.getOutbound("draft", refId)).toBeUndefined();
        expect((await store.getOutbound("event", `${refId}-event`))?.platformMessageIds).toEqual(["d1"]);

        // A ref given twice in one call: the later record stands.
        await store.recordOutbound(
          { chatKey: chat, refKind: "event", refId, platformMessageIds: ["z1"] },
          { chatKey: chat, refKind: "event", refId, platformMessageIds: ["z2", "z3"] },
        );
        expect((await store.getOutbound("event", refId))?.platformMessageIds).toEqual(["z2", "z3"]);

        // More refs and rows than one statement takes: every one is replaced.
        const refs = ["a", "b", "c", "d"].map((name) => `${refId}-${name}`);
        const old = (ref: string) => ({
          chatKey: chat,
          refKind: "message" as const,
          refId: ref,
          platformMessageIds: ["x"],
        });
        const [a, b, c, d] = refs as [string, string, string, string];
        await store.recordOutbound(old(a), old(b), old(c), old(d));
        await store.recordOutbound(
          { chatKey: chat, refKind: "message", refId: a, platformMessageIds: ["a1", "a2", "a3"] },
          { chatKey: chat, refKind: "message", refId: b, platformMessageIds: [] },
          { chatKey: chat, refKind: "message", refId: c, platformMessageIds: ["c1"] },
          { chatKey: chat, refKind: "message", refId: d, platformMessageIds: ["d1"] },
        );
        const found = await Promise.all(refs.map((ref) => store.getOutbound("message", ref)));
        expect(found.map((record) => record?.platformMessageIds)).toEqual([
          ["a1", "a2", "a3"],
          undefined,
          ["c1"],
          ["d1"],
        ]);
      });

      it("reads up to three refs at once, leaving out those with no record", async () => {
        const chat = chatKey();
        const refId = unique("msg");
        await store.recordOutbound(
          { chatKey: chat, refKind: "message", refId, platformMessageIds: ["m1", "m2"] },
          { chatKey: chat, refKind: "event", refId: `${refId}-event`, platformMessageIds: ["m1"] },
        );
        const found = await store.getOutbounds([
          { refKind: "event", refId: `${refId}-event` },
          { refKind: "message", refId },
          { refKind: "draft", refId },
        ]);
        expect(found).toHaveLength(2);
        expect(found).toContainEqual({ chatKey: chat, refKind: "message", refId, platformMessageIds: ["m1", "m2"] });
        expect(found).toContainEqual({
          chatKey: chat,
          refKind: "event",
          refId: `${refId}-event`,
          platformMessageIds: ["m1"],
        });
        expect(await store.getOutbounds([{ refKind: "message", refId }])).toHaveLength(1);
        expect(await store.getOutbounds([{ refKind: "draft", refId }])).toEqual([]);
        expect(await store.getOutbounds([])).toEqual([]);
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
