import { describe, expect, it } from "vitest";
import type { DeniedCallRecord } from "../../src/world/stores/denials-and-edits.js";
import { contractBuilders, type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

/** Denials that stick until /reset and edited arguments: stored with their decision, read back alike on both databases. */
export function storeDenialContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, sticky denials and edits`, () => {
    const store = storeOpenedFor(open);
    const { unique, chatKey, storedCall, approval } = contractBuilders(() => store);
    const at = new Date("2030-01-01T00:00:00.000Z");

    function denial(chat: string, approvalId: string, overrides: Partial<DeniedCallRecord> = {}): DeniedCallRecord {
      return {
        chatKey: chat,
        agent: "alice",
        tool: "shell_cmd",
        argsHash: "h-1",
        sessionEpoch: 0,
        approvalId,
        deniedBy: { id: "u9", name: "Boss" },
        reason: "not on fridays",
        createdAt: at,
        ...overrides,
      };
    }

    it("stores a denial with its decision and finds it for exactly its key and session", async () => {
      const chat = chatKey();
      const call = await storedCall(chat);
      const pending = await store.createApproval(approval(chat, call.id));
      const denied = denial(chat, pending.id);
      const decided = await store.decideApproval(pending.id, {
        state: "denied",
        choice: "deny",
        actorId: "u9",
        actorName: "Boss",
        note: "not on fridays",
        at,
        deniedCall: denied,
      });
      expect(decided.won).toBe(true);
      const key = { chatKey: chat, agent: "alice", tool: "shell_cmd", argsHash: "h-1", sessionEpoch: 0 };
      expect(await store.findDeniedCall(key)).toEqual(denied);
      expect(await store.findDeniedCall({ ...key, sessionEpoch: 1 })).toBeUndefined();
      expect(await store.findDeniedCall({ ...key, argsHash: "h-2" })).toBeUndefined();
      expect(await store.findDeniedCall({ ...key, agent: "bob" })).toBeUndefined();
      expect(await store.findDeniedCall({ ...key, chatKey: chatKey() })).toBeUndefined();
      expect((await store.listApprovalChanges(pending.id)).at(-1)?.note).toBe("not on fridays");
    });

    it("keeps the first denial of a call in a session; a denial without a reason has none", async () => {
      const chat = chatKey();
      const key = { chatKey: chat, agent: "alice", tool: "shell_cmd", argsHash: "h-1", sessionEpoch: 0 };
      for (const reason of [undefined, "second"]) {
        const call = await storedCall(chat);
        const pending = await store.createApproval(approval(chat, call.id));
        const { reason: _dropped, ...withoutReason } = denial(chat, pending.id);
        const deniedCall = reason === undefined ? withoutReason : { ...withoutReason, reason };
        const decided = await store.decideApproval(pending.id, {
          state: "denied",
          choice: "deny",
          actorId: "u9",
          actorName: "Boss",
          at,
          deniedCall,
        });
        expect(decided.won).toBe(true);
      }
      const kept = await store.findDeniedCall(key);
      expect(kept?.reason).toBeUndefined();
      expect(kept?.deniedBy).toEqual({ id: "u9", name: "Boss" });
    });

    it("a decision that loses the race stores no denial", async () => {
      const chat = chatKey();
      const call = await storedCall(chat);
      const pending = await store.createApproval(approval(chat, call.id));
      await store.decideApproval(pending.id, {
        state: "approved",
        choice: "once",
        actorId: "u1",
        actorName: "Ana",
        at,
      });
      const late = await store.decideApproval(pending.id, {
        state: "denied",
        choice: "deny",
        actorId: "u9",
        actorName: "Boss",
        at,
        deniedCall: denial(chat, pending.id, { argsHash: unique("h") }),
      });
      expect(late.won).toBe(false);
      expect(
        await store.findDeniedCall({
          chatKey: chat,
          agent: "alice",
          tool: "shell_cmd",
          argsHash: "h-1",
          sessionEpoch: 0,
        }),
      ).toBeUndefined();
    });

    it("keeps an edit's arguments beside the model's", async () => {
      const chat = chatKey();
      const call = await storedCall(chat);
      const pending = await store.createApproval(approval(chat, call.id));
      expect(pending.editedArgumentsJson).toBeUndefined();
      const edited = '{"command":"echo","args":["edited"]}';
      const decided = await store.decideApproval(pending.id, {
        state: "approved",
        choice: "edit",
        actorId: "u9",
        actorName: "Boss",
        at,
        editedArgumentsJson: edited,
      });
      expect(decided.approval).toMatchObject({ state: "approved", choice: "edit", editedArgumentsJson: edited });
      expect((await store.getApproval(pending.id))?.editedArgumentsJson).toBe(edited);
      expect((await store.listApprovals({ chatKey: chat }))[0]?.editedArgumentsJson).toBe(edited);
      expect((await store.getToolCall(call.id))?.argumentsJson).toBe(call.argumentsJson);
    });
  });
}
