import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { BucketCap, BudgetCharge } from "../../src/world/stores/budget-store.js";
import { type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

/** The budget part of the Store contract: buckets per scope and period, caps held at once, raises, alerts once. */
export function storeBudgetContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, budgets`, () => {
    const store = storeOpenedFor(open);
    const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
    const day = "2026-11-24";
    const month = "2026-11";
    const charge = (world: string, person: string, costUsd: number): BudgetCharge => ({
      world,
      agent: "alice",
      chatKey: "slack:C1:",
      person,
      day,
      month,
      inputTokens: 100,
      outputTokens: 0,
      cachedInputTokens: 0,
      costUsd,
      calls: 1,
      estimatedCalls: 1,
    });

    it("charges a call to the world, agent, chat and person for the day and the month, and to UsageDay", async () => {
      const world = unique("world");
      const used = await store.chargeBudget(charge(world, "U1", 0.5), []);
      expect(used).toHaveLength(8);
      expect(used?.find((bucket) => bucket.scope === "person" && bucket.period === month)).toMatchObject({
        subject: "U1",
        tokens: 100,
        costUsd: 0.5,
      });
      await store.chargeBudget({ ...charge(world, "U1", -0.25), inputTokens: 20, calls: 0, estimatedCalls: -1 }, []);
      const [person] = await store.listBuckets({ world, scope: "person", period: day });
      expect(person).toMatchObject({ subject: "U1", calls: 1, estimatedCalls: 0, inputTokens: 120, costUsd: 0.25 });
      expect(await store.listUsage({ world })).toMatchObject([
        { agent: "alice", day, inputTokens: 120, costUsd: 0.25 },
      ]);
    });

    it("holds a person cap and a world cap with 32 people charging at once: no cap passed", async () => {
      const world = unique("world");
      const people = Array.from({ length: 32 }, (_, index) => `U${index}`);
      const capsFor = (person: string): BucketCap[] => [
        { scope: "world", subject: "", period: day, costUsd: 10 },
        { scope: "person", subject: person, period: day, costUsd: 1 },
      ];
      // Each person tries five calls of 0.25 at once: four fit their cap, 40 fit the world's.
      const passed = await Promise.all(
        people.flatMap((person) =>
          Array.from({ length: 5 }, () => store.chargeBudget(charge(world, person, 0.25), capsFor(person))),
        ),
      );
      expect(passed.filter((used) => used !== undefined)).toHaveLength(40);
      const [total] = await store.listBuckets({ world, scope: "world", period: day });
      expect(total?.costUsd).toBe(10);
      for (const bucket of await store.listBuckets({ world, scope: "person", period: day })) {
        expect(bucket.costUsd).toBeLessThanOrEqual(1);
      }
      const usageDay = await store.listUsage({ world });
      expect(usageDay.reduce((sum, row) => sum + row.costUsd, 0)).toBe(10);
    });

    it("refuses a charge past a token cap and lets a raise add to the cap once per approval", async () => {
      const world = unique("world");
      const cap: BucketCap = { scope: "person", subject: "U1", period: day, tokens: 150 };
      expect(await store.chargeBudget(charge(world, "U1", 0), [cap])).toBeDefined();
      expect(await store.chargeBudget(charge(world, "U1", 0), [cap])).toBeUndefined();
      expect(await store.chargeBudget(charge(world, "U2", 0), [{ ...cap, subject: "U2" }])).toBeDefined();
      const raise = {
        approvalId: unique("approval"),
        world,
        cap: "perPerson.tokensPerDay",
        scope: "person" as const,
        subject: "U1",
        period: day,
        unit: "tokens" as const,
        amount: 150,
        decidedBy: "Ana",
      };
      expect(await store.raiseBudget(raise)).toBe(true);
      expect(await store.raiseBudget(raise)).toBe(false);
      expect(await store.readBuckets(world, [cap])).toMatchObject([{ tokens: 100, raisedTokens: 150 }]);
      expect(await store.chargeBudget(charge(world, "U1", 0), [cap])).toBeDefined();
      expect(await store.chargeBudget(charge(world, "U1", 0), [cap])).toBeDefined();
      expect(await store.chargeBudget(charge(world, "U1", 0), [cap])).toBeUndefined();
    });

    it("records an alert once per cap, subject, period and threshold", async () => {
      const world = unique("world");
      const alert = { world, cap: "costPerDay", subject: "", period: day, threshold: 80 };
      const first = await Promise.all([store.recordBudgetAlert(alert), store.recordBudgetAlert(alert)]);
      expect(first.filter(Boolean)).toHaveLength(1);
      expect(await store.recordBudgetAlert({ ...alert, threshold: 100 })).toBe(true);
      expect(await store.recordBudgetAlert({ ...alert, period: "2026-11-25" })).toBe(true);
    });
  });
}
