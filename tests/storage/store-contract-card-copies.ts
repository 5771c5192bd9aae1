import { describe, expect, it } from "vitest";
import { contractBuilders, type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

/** An approval card's copies (DMs, the approvals chat): recorded once, listed in order, marked once. */
export function storeCardCopyContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, approval card copies`, () => {
    const store = storeOpenedFor(open);
    const { unique } = contractBuilders(() => store);

    it("records copies once (a second record of the same approval and chat changes nothing) and lists them all", async () => {
      const approvalId = unique("ap");
      await store.addCardCopies([
        { approvalId, chatKey: "telegram::-100:", kind: "chat" },
        { approvalId, chatKey: "telegram::222:", kind: "dm", personId: "222" },
      ]);
      await store.markCardCopy(approvalId, "telegram::222:", { state: "unreachable" });
      await store.addCardCopies([
        { approvalId, chatKey: "telegram::222:", kind: "dm", personId: "222" },
        { approvalId, chatKey: "slack:T1:C9:", kind: "channel" },
      ]);
      const copies = (await store.listCardCopies(approvalId)).sort((a, b) => a.chatKey.localeCompare(b.chatKey));
      expect(
        copies.map(({ chatKey, kind, personId, state, decidedHere }) => ({
          chatKey,
          kind,
          personId,
          state,
          decidedHere,
        })),
      ).toEqual([
        { chatKey: "slack:T1:C9:", kind: "channel", personId: undefined, state: "open", decidedHere: false },
        { chatKey: "telegram::-100:", kind: "chat", personId: undefined, state: "open", decidedHere: false },
        { chatKey: "telegram::222:", kind: "dm", personId: "222", state: "unreachable", decidedHere: false },
      ]);
      expect(await store.listCardCopies(unique("other"))).toEqual([]);
    });

    it("finds a copy by approval and chat only; a state changes once, from open; the deciding copy is marked", async () => {
      const approvalId = unique("ap");
      await store.addCardCopies([{ approvalId, chatKey: "slack:T1:D1:", kind: "dm", personId: "U1" }]);
      expect(await store.getCardCopy(approvalId, "slack:T1:D1:")).toMatchObject({ kind: "dm", personId: "U1" });
      expect(await store.getCardCopy(approvalId, "slack:T1:D2:")).toBeUndefined();
      expect(await store.getCardCopy(unique("ap"), "slack:T1:D1:")).toBeUndefined();
      expect(await store.markCardCopy(approvalId, "slack:T1:D1:", { state: "unposted" })).toBe(true);
      expect(await store.markCardCopy(approvalId, "slack:T1:D1:", { state: "unreachable" })).toBe(false);
      expect(await store.markCardCopy(approvalId, "slack:T1:D1:", { decidedHere: true })).toBe(true);
      expect(await store.getCardCopy(approvalId, "slack:T1:D1:")).toMatchObject({
        state: "unposted",
        decidedHere: true,
      });
      expect(await store.markCardCopy(approvalId, "slack:T1:D9:", { decidedHere: true })).toBe(false);
    });
  });
}
