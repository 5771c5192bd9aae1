// Reserving and settling an amount against every cap that applies (world, chat, agent, person),
// and the alerts posted the first time a cap's use crosses a threshold. Model calls use it
// (src/agents/charge-model-call.ts); so can anything else that spends the world's budget.
import type { BucketUse, BudgetCharge, BudgetStore } from "../stores/budget-store.js";
import { parseChatKey } from "../chat-ref.js";
import { postWorldNotice, type NoticeOutbox } from "../world-notice.js";
import type { WorldContext } from "../world-context.js";
import type { WorldLimitSettings } from "../world-settings.js";
import {
  type AppliedCap,
  budgetAlertText,
  bucketCapsOf,
  capResetsAt,
  capsThatApply,
  defaultAlerts,
  useOf,
} from "./budget-caps.js";
import type { BudgetExceeded } from "./day-budget.js";

/** A charge reserved within its caps: what was charged, the caps that applied, the buckets after it. */
export interface ReservedBudget {
  charge: BudgetCharge;
  caps: AppliedCap[];
  used: BucketUse[];
}

/**
 * Reserve `charge` (an estimate: its tokens and USD, for a world, chat, agent and person on a
 * day and month) only if every cap of `limits` that applies holds with it; the cap it would
 * pass otherwise (nothing charged). Atomic in the store, also between processes. Settle it
 * with {@link settleBudget} once the real figures are known.
 */
export async function reserveBudget(
  store: Pick<BudgetStore, "chargeBudget" | "readBuckets">,
  limits: WorldLimitSettings,
  charge: BudgetCharge,
  now: Date,
): Promise<ReservedBudget | BudgetExceeded> {
  const caps = capsThatApply(limits, charge);
  const used = await store.chargeBudget(charge, bucketCapsOf(caps));
  if (used) return { charge, caps, used };
  const buckets = await store.readBuckets(charge.world, caps);
  const needed = { tokens: charge.inputTokens + charge.outputTokens, costUsd: charge.costUsd };
  // The cap the call would pass (another call may have settled since: then the first full one).
  // (A charge without caps is never refused, so there is a first cap.)
  const passed =
    caps.find((cap) => {
      const use = useOf(cap, buckets);
      return use.used + needed[cap.unit] > use.allowed;
    }) ?? (caps[0] as AppliedCap);
  const use = useOf(passed, buckets);
  return {
    limit: passed.name,
    used: use.used,
    allowed: use.allowed,
    needed: needed[passed.unit],
    resetsAt: capResetsAt(passed.periodKind, now),
    cap: passed,
  };
}

/**
 * Settle a reserved charge: add `correction` (the real figures minus the estimate, and the
 * estimated call turned into a reported one where it was) to the same buckets, whatever the
 * caps; the buckets after it.
 */
export async function settleBudget(
  store: Pick<BudgetStore, "chargeBudget">,
  reserved: ReservedBudget,
  correction: Pick<
    BudgetCharge,
    "inputTokens" | "outputTokens" | "cachedInputTokens" | "costUsd" | "calls" | "estimatedCalls"
  >,
): Promise<BucketUse[]> {
  return (await store.chargeBudget({ ...reserved.charge, ...correction }, [])) ?? [];
}

/** Alerts known posted in this process, so that a cap past a threshold costs no write per call. */
const postedAlerts = new WeakMap<object, Set<string>>();

/**
 * Post an alert into the chat the first time a cap's use crosses one of `limits.alerts`: one
 * per cap, subject, threshold and period across restarts and processes (a unique row, and the
 * notice's id). Where one use crosses several thresholds at once, all are recorded and the
 * highest is posted.
 */
export async function postBudgetAlerts(
  context: Pick<WorldContext, "store" | "clock">,
  outbox: NoticeOutbox,
  world: string,
  limits: WorldLimitSettings,
  reserved: Pick<ReservedBudget, "caps" | "charge">,
  used: readonly BucketUse[],
  personName: () => Promise<string | undefined>,
): Promise<void> {
  if (reserved.caps.length === 0) return;
  const thresholds = [...(limits.alerts ?? defaultAlerts)].sort((a, b) => a - b);
  let posted = postedAlerts.get(context.store);
  if (!posted) {
    posted = new Set();
    postedAlerts.set(context.store, posted);
  }
  if (posted.size > 10_000) posted.clear();
  for (const cap of reserved.caps) {
    const use = useOf(cap, used);
    let highest: number | undefined;
    for (const threshold of thresholds) {
      if (use.used * 100 < threshold * use.allowed) break;
      const key = `${world}\u0000${cap.name}\u0000${cap.subject}\u0000${cap.period}\u0000${threshold}`;
      if (posted.has(key)) continue;
      const alert = { world, cap: cap.name, subject: cap.subject, period: cap.period, threshold };
      // Recorded first (a failed write marks nothing: the next call tries again). A threshold
      // another process, or one that died before posting, recorded is posted here too unless its
      // notice is stored: the notice's id makes the post once.
      await context.store.recordBudgetAlert(alert);
      posted.add(key);
      highest = threshold;
    }
    if (highest === undefined) continue;
    const now = context.clock();
    const name = cap.scope === "person" ? await personName() : undefined;
    await postWorldNotice(context, outbox, {
      chat: parseChatKey(reserved.charge.chatKey),
      id: `budget-alert:${world}:${cap.name}:${cap.subject}:${cap.period}:${highest}`,
      text: budgetAlertText(cap, use, highest, now, name),
    });
  }
}
