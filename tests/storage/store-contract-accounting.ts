import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

/** The accounting part of the Store contract: usage per world, agent and day; message counts; the audit. */
export function storeAccountingContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, usage, message rate and approvals audit`, () => {
    const store = storeOpenedFor(open);
    const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

    it("adds usage per world, agent and day, concurrent additions included", async () => {
      const world = unique("world");
      const entry = { world, agent: "alice", inputTokens: 10, outputTokens: 5, cachedInputTokens: 2, costUsd: 0.25 };
      const one = { calls: 1, estimatedCalls: 0 };
      await Promise.all([
        store.addUsage({ ...entry, ...one, day: "2026-11-24" }),
        store.addUsage({ ...entry, ...one, day: "2026-11-24" }),
        store.addUsage({ ...entry, ...one, day: "2026-11-24" }),
      ]);
      await store.addUsage({ ...entry, ...one, agent: "bob", day: "2026-11-24" });
      await store.addUsage({ ...entry, calls: 1, estimatedCalls: 1, day: "2026-11-25" });
      // An estimate corrected by the provider's figures: tokens and cost back, no longer estimated.
      await store.addUsage({
        ...entry,
        inputTokens: -4,
        outputTokens: 1,
        cachedInputTokens: 0,
        costUsd: -0.05,
        calls: 0,
        estimatedCalls: -1,
        day: "2026-11-25",
      });
      expect(await store.listUsage({ world })).toEqual([
        {
          ...entry,
          day: "2026-11-24",
          calls: 3,
          estimatedCalls: 0,
          inputTokens: 30,
          outputTokens: 15,
          cachedInputTokens: 6,
          costUsd: 0.75,
        },
        { ...entry, ...one, agent: "bob", day: "2026-11-24" },
        { ...entry, ...one, day: "2026-11-25", inputTokens: 6, outputTokens: 6, costUsd: 0.2 },
      ]);
      expect(await store.listUsage({ world, fromDay: "2026-11-25" })).toHaveLength(1);
      expect(await store.listUsage({ world: unique("none") })).toEqual([]);
    });

    it("reserves usage only within the day's caps, 32 concurrent reservations included", async () => {
      const world = unique("world");
      const day = "2026-11-24";
      const estimate = { world, day, outputTokens: 0, cachedInputTokens: 0, calls: 1, estimatedCalls: 1 };
      // Another agent's 100 tokens already count against the world's day.
      await store.addUsage({ ...estimate, agent: "bob", inputTokens: 100, costUsd: 0, estimatedCalls: 0 });
      const attempts = await Promise.all(
        Array.from({ length: 32 }, (_, index) =>
          store.reserveUsage(
            { ...estimate, agent: index % 2 === 0 ? "alice" : "carol", inputTokens: 100, costUsd: 0.5 },
            { tokens: 1_000 },
          ),
        ),
      );
      // 100 used + 9 × 100 reach the cap exactly; every other reservation is refused.
      expect(attempts.filter(Boolean)).toHaveLength(9);
      const rows = await store.listUsage({ world });
      expect(rows.reduce((sum, row) => sum + row.inputTokens, 0)).toBe(1_000);
      expect(rows.reduce((sum, row) => sum + row.estimatedCalls, 0)).toBe(9);
      // The cost cap is checked the same way; a day without caps takes anything.
      expect(
        await store.reserveUsage({ ...estimate, agent: "alice", inputTokens: 0, costUsd: 0.5 }, { costUsd: 4.75 }),
      ).toBe(false);
      expect(
        await store.reserveUsage({ ...estimate, agent: "alice", inputTokens: 0, costUsd: 0.25 }, { costUsd: 4.75 }),
      ).toBe(true);
      expect(
        await store.reserveUsage({ ...estimate, agent: "alice", inputTokens: 10 ** 9, costUsd: 10 ** 6 }, {}),
      ).toBe(true);
    });

    it("never lets two concurrent reservations of a world's day pass its budget together", async () => {
      // Two agents (two rows) at once, each fitting alone, not both: exactly one passes, every
      // round, for the token cap and for the cost cap (the reservation is one statement).
      const day = "2026-11-24";
      const estimate = { day, outputTokens: 0, cachedInputTokens: 0, calls: 1, estimatedCalls: 1 };
      for (let round = 0; round < 12; round++) {
        const world = unique("world");
        const caps = round % 2 === 0 ? { tokens: 150 } : { costUsd: 1.5 };
        const passed = await Promise.all(
          ["alice", "bob"].map((agent) =>
            store.reserveUsage({ ...estimate, world, agent, inputTokens: 100, costUsd: 1 }, caps),
          ),
        );
        expect(passed.filter(Boolean)).toHaveLength(1);
        const rows = await store.listUsage({ world });
        expect(rows.reduce((sum, row) => sum + row.inputTokens, 0)).toBe(100);
        expect(rows.reduce((sum, row) => sum + row.costUsd, 0)).toBe(1);
      }
    });

    it("counts a person's human messages on a platform in a time range", async () => {
      const person = unique("person");
      const chat = `telegram::${unique("chat")}:`;
      await store.ensureChat(chat, "team", "telegram");
      const at = (second: number) => new Date(Date.UTC(2026, 10, 24, 12, 0, second));
      for (const second of [1, 2, 3]) {
        await store.addMessage({
          id: unique("msg"),
          chatKey: chat,
          author: { kind: "human", id: person, name: "P" },
          text: "hi",
          createdAt: at(second),
        });
      }
      expect(await store.countPersonMessages("telegram", person, at(0), at(3))).toBe(3);
      expect(await store.countPersonMessages("telegram", person, at(1), at(2))).toBe(1);
      expect(await store.countPersonMessages("slack", person, at(0), at(3))).toBe(0);
    });

    it("counts messages stored in the same millisecond only up to the one asked about", async () => {
      const person = unique("person");
      const chat = `telegram::${unique("chat")}:`;
      await store.ensureChat(chat, "team", "telegram");
      const same = new Date(Date.UTC(2026, 10, 24, 12, 0, 5));
      const ids = [unique("msg"), unique("msg"), unique("msg")];
      for (const id of ids) {
        await store.addMessage({
          id,
          chatKey: chat,
          author: { kind: "human", id: person, name: "P" },
          text: "hi",
          createdAt: same,
        });
      }
      const before = new Date(same.getTime() - 60_000);
      expect(await store.countPersonMessages("telegram", person, before, same)).toBe(3);
      expect(await store.countPersonMessages("telegram", person, before, same, ids[0])).toBe(1);
      expect(await store.countPersonMessages("telegram", person, before, same, ids[1])).toBe(2);
    });
  });
}
