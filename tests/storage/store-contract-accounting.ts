import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/storage/store.js";
import type { StoreFixture } from "./store-contract-fixtures.js";

/** The accounting part of the Store contract: usage per world, agent and day; message counts; the audit. */
export function storeAccountingContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, usage, message rate and approvals audit`, () => {
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

    it("adds usage per world, agent and day, concurrent additions included", async () => {
      const world = unique("world");
      const entry = { world, agent: "alice", inputTokens: 10, outputTokens: 5, cachedInputTokens: 2, costUsd: 0.25 };
      await Promise.all([
        store.addUsage({ ...entry, day: "2026-11-24" }),
        store.addUsage({ ...entry, day: "2026-11-24" }),
        store.addUsage({ ...entry, day: "2026-11-24" }),
      ]);
      await store.addUsage({ ...entry, agent: "bob", day: "2026-11-24" });
      await store.addUsage({ ...entry, day: "2026-11-25" });
      expect(await store.listUsage({ world })).toEqual([
        {
          ...entry,
          day: "2026-11-24",
          calls: 3,
          inputTokens: 30,
          outputTokens: 15,
          cachedInputTokens: 6,
          costUsd: 0.75,
        },
        { ...entry, agent: "bob", day: "2026-11-24", calls: 1 },
        { ...entry, day: "2026-11-25", calls: 1 },
      ]);
      expect(await store.listUsage({ world, fromDay: "2026-11-25" })).toHaveLength(1);
      expect(await store.listUsage({ world: unique("none") })).toEqual([]);
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
  });
}
