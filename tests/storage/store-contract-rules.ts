import { describe, expect, it } from "vitest";
import type { NewStoredRule } from "../../src/world/policy/stored-rules.js";
import { contractBuilders, type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

/** Stored *Always allow* rules: made with their decision, matched while active, each use counted once, revoked once. */
export function storeRuleContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, stored Always allow rules`, () => {
    const store = storeOpenedFor(open);
    const { unique, chatKey, storedCall, approval } = contractBuilders(() => store);
    const createdAt = new Date("2030-01-01T00:00:00.000Z");
    const expiresAt = new Date("2030-01-31T00:00:00.000Z");

    async function ruleFromCard(world: string, argsHash: string): Promise<NewStoredRule> {
      const chat = chatKey();
      const call = await storedCall(chat);
      const pending = await store.createApproval(approval(chat, call.id, { world }));
      const rule: NewStoredRule = {
        id: unique("r"),
        world,
        agent: "alice",
        tool: "shell_cmd",
        argsHash,
        argumentsJson: call.argumentsJson,
        author: { id: "u9", name: "Boss", platform: "telegram" },
        sourceApprovalId: pending.id,
        createdAt,
        expiresAt,
      };
      const decided = await store.decideApproval(pending.id, {
        state: "approved",
        choice: "always",
        actorId: "u9",
        actorName: "Boss",
        at: createdAt,
        storedRule: rule,
      });
      expect(decided).toMatchObject({ won: true, approval: { state: "approved", choice: "always" } });
      return rule;
    }

    it("stores the rule with its decision; finds it for exactly its key while active", async () => {
      const world = unique("world");
      const rule = await ruleFromCard(world, "hash-a");
      expect(await store.getStoredRule(rule.id)).toEqual({ ...rule, useCount: 0 });
      const key = { world, agent: "alice", tool: "shell_cmd", argsHash: "hash-a" };
      const during = new Date("2030-01-15T00:00:00.000Z");
      expect((await store.findActiveStoredRule(key, during))?.id).toBe(rule.id);
      expect(await store.findActiveStoredRule({ ...key, argsHash: "hash-b" }, during)).toBeUndefined();
      expect(await store.findActiveStoredRule({ ...key, agent: "bob" }, during)).toBeUndefined();
      expect(await store.findActiveStoredRule({ ...key, world: unique("other") }, during)).toBeUndefined();
      expect(await store.findActiveStoredRule(key, expiresAt)).toBeUndefined();
      expect((await store.listStoredRules({ world })).map((each) => each.id)).toEqual([rule.id]);
    });

    it("counts each call's use once; refuses a use once expired or revoked; revokes once", async () => {
      const world = unique("world");
      const rule = await ruleFromCard(world, "hash-c");
      const use = (toolCallId: string, usedAt: Date) => ({
        ruleId: rule.id,
        toolCallId,
        world,
        chatKey: "telegram::x:",
        agent: "alice",
        usedAt,
      });
      const first = unique("call");
      const at = new Date("2030-01-02T00:00:00.000Z");
      expect(await store.useStoredRule(use(first, at))).toBe(true);
      expect(await store.useStoredRule(use(first, at))).toBe(true);
      expect(await store.storedRuleUseOf(first)).toEqual(use(first, at));
      expect(await store.getStoredRule(rule.id)).toMatchObject({ useCount: 1, lastUsedAt: at });
      expect(await store.useStoredRule(use(unique("call"), expiresAt))).toBe(false);
      expect(await store.listStoredRuleUses({ since: createdAt, world })).toEqual([use(first, at)]);
      expect(await store.listStoredRuleUses({ since: new Date("2030-01-03T00:00:00.000Z"), world })).toEqual([]);

      const revokedAt = new Date("2030-01-04T00:00:00.000Z");
      const revoked = await store.revokeStoredRule(rule.id, "Boss", revokedAt);
      expect(revoked).toMatchObject({ revoked: true, rule: { revokedAt, revokedBy: "Boss" } });
      expect(await store.revokeStoredRule(rule.id, "Ana", revokedAt)).toMatchObject({
        revoked: false,
        rule: { revokedBy: "Boss" },
      });
      expect(await store.revokeStoredRule(unique("r"), "Ana", revokedAt)).toBeUndefined();
      const later = new Date("2030-01-05T00:00:00.000Z");
      expect(await store.useStoredRule(use(unique("call"), later))).toBe(false);
      expect(
        await store.findActiveStoredRule({ world, agent: "alice", tool: "shell_cmd", argsHash: "hash-c" }, later),
      ).toBeUndefined();
      expect(await store.getStoredRule(rule.id)).toMatchObject({ useCount: 1 });
    });
  });
}
