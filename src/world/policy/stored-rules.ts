/**
 * Stored *Always allow* rules (docs/approvals.md, "Always allow"): made from a card by a decider
 * listed by id, each for exactly one world, agent, tool and canonical arguments, until it expires
 * or is revoked. They are matched like configured `allow` rules (a configured `deny` rule still
 * wins: the dispatch asks the configured policy first) and every use is recorded.
 */
import type { WorldSettings } from "../world-settings.js";

/** One stored rule, as `/rules` and `roundtable rules` show it. */
export interface StoredRuleRecord {
  /** Short and typeable (`/rules revoke 3f9a1c2e`); unique. */
  id: string;
  world: string;
  agent: string;
  tool: string;
  /** The call's hash: the tool and its canonical arguments (the same hash as session grants). */
  argsHash: string;
  /** The arguments of the call the rule was made from, as its card showed them. */
  argumentsJson: string;
  /** Who pressed *Always allow*, on which platform. */
  author: { id: string; name: string; platform: string };
  /** The approval whose card made the rule. */
  sourceApprovalId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt?: Date;
  /** Who revoked it (a name; `roundtable rules revoke` writes `cli`). */
  revokedBy?: string;
  useCount: number;
  lastUsedAt?: Date;
}

export type NewStoredRule = Omit<StoredRuleRecord, "revokedAt" | "revokedBy" | "useCount" | "lastUsedAt">;

/** One call a stored rule allowed (at most one per call). */
export interface StoredRuleUse {
  ruleId: string;
  toolCallId: string;
  world: string;
  chatKey: string;
  agent: string;
  usedAt: Date;
}

/** What a call is matched by: exactly this world, agent, tool and hash. */
export interface StoredRuleKey {
  world: string;
  agent: string;
  tool: string;
  argsHash: string;
}

/**
 * The stored rules part of the `Store` (made in `decideApproval`'s transaction, with the
 * *Always allow* decision that makes one: `ApprovalDecision.storedRule`).
 */
export interface StoredRuleStore {
  /** The oldest rule for exactly this key that is neither revoked nor expired at `now`. */
  findActiveStoredRule(key: StoredRuleKey, now: Date): Promise<StoredRuleRecord | undefined>;
  /**
   * Record that the rule allowed this call, once per call: its use count up by one and its last
   * use set, in one transaction. False (and nothing recorded) when the rule is revoked, expired
   * at `use.usedAt` or unknown; true when this call's use was recorded now or before.
   */
  useStoredRule(use: StoredRuleUse): Promise<boolean>;
  /** The recorded use of a call, if a stored rule allowed it. */
  storedRuleUseOf(toolCallId: string): Promise<StoredRuleUse | undefined>;
  /** Uses since `since` (of one world), oldest first (`roundtable approvals`). */
  listStoredRuleUses(filter: { since: Date; world?: string }): Promise<StoredRuleUse[]>;
  getStoredRule(id: string): Promise<StoredRuleRecord | undefined>;
  /** Every rule (of one world), revoked and expired ones too, oldest first. */
  listStoredRules(filter: { world?: string }): Promise<StoredRuleRecord[]>;
  /**
   * Revoke a rule (first revocation wins). Undefined for an unknown id; else the rule as it
   * stands and whether this call revoked it.
   */
  revokeStoredRule(id: string, by: string, at: Date): Promise<{ revoked: boolean; rule: StoredRuleRecord } | undefined>;
}

/** Whether a rule matches at `now`: not revoked and not expired. */
export function isRuleActive(rule: Pick<StoredRuleRecord, "revokedAt" | "expiresAt">, now: Date): boolean {
  return rule.revokedAt === undefined && now.getTime() < rule.expiresAt.getTime();
}

/** The call the dispatch asks about. */
export interface RuleCheckedCall {
  id: string;
  chatKey: string;
  agent: string;
  name: string;
}

/**
 * The stored rule that lets this call run unasked, its use recorded; undefined when none does.
 * Called only for a call the configured policy would ask about (never for a blocked one). A call
 * whose use was recorded before (a step run again after a crash) keeps its rule. Rules match
 * only while the world has `approvals.allowAlways` on.
 */
export async function allowedByStoredRule(
  store: StoredRuleStore,
  world: Pick<WorldSettings, "name" | "allowAlways">,
  call: RuleCheckedCall,
  argsHash: string,
  now: Date,
): Promise<StoredRuleRecord | undefined> {
  const used = await store.storedRuleUseOf(call.id);
  if (used) return store.getStoredRule(used.ruleId);
  if (world.allowAlways === undefined) return undefined;
  const key = { world: world.name, agent: call.agent, tool: call.name, argsHash };
  // A rule revoked between the look-up and the use: the next active one, if any.
  for (let attempt = 0; attempt < 3; attempt++) {
    const rule = await store.findActiveStoredRule(key, now);
    if (!rule) return undefined;
    const use = { ruleId: rule.id, toolCallId: call.id, world: world.name, chatKey: call.chatKey, agent: call.agent };
    if (await store.useStoredRule({ ...use, usedAt: now })) return rule;
  }
  return undefined;
}
