import { describe, expect, it } from "vitest";
import { contractBuilders, type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

/** Quorum votes: one per approver and approval, read back oldest first, kept apart per approval. */
export function storeVoteContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, quorum votes`, () => {
    const store = storeOpenedFor(open);
    const { unique } = contractBuilders(() => store);
    const at = (seconds: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, seconds));

    it("a vote is stored once per approver; every vote comes back, oldest first", async () => {
      const approvalId = unique("approval");
      const first = await store.addApprovalVote({
        approvalId,
        voterId: "U1",
        voterName: "Ana",
        platform: "slack",
        choice: "once",
        at: at(1),
      });
      expect(first.added).toBe(true);
      expect(first.votes).toEqual([
        { approvalId, voterId: "U1", voterName: "Ana", platform: "slack", choice: "once", at: at(1) },
      ]);
      const again = await store.addApprovalVote({
        approvalId,
        voterId: "U1",
        voterName: "Ana again",
        platform: "slack",
        choice: "session",
        at: at(2),
      });
      expect(again.added).toBe(false);
      expect(again.votes.map((vote) => [vote.voterName, vote.choice])).toEqual([["Ana", "once"]]);
      const second = await store.addApprovalVote({
        approvalId,
        voterId: "222",
        voterName: "Boss",
        platform: "telegram",
        choice: "always",
        at: at(3),
      });
      expect(second.votes.map((vote) => vote.voterId)).toEqual(["U1", "222"]);
      expect(await store.listApprovalVotes(unique("other"))).toEqual([]);
    });

    it("votes cast at once for one approval are all kept", async () => {
      const approvalId = unique("approval");
      const voters = ["a", "b", "c", "d", "e"];
      await Promise.all(
        voters.map((voterId, index) =>
          store.addApprovalVote({
            approvalId,
            voterId,
            voterName: voterId,
            platform: "discord",
            choice: "once",
            at: at(index),
          }),
        ),
      );
      expect((await store.listApprovalVotes(approvalId)).map((vote) => vote.voterId)).toEqual(voters);
    });
  });
}
