import type { ApprovalRecord } from "../../world/records.js";
import type { DayCaps, UsageChange, UsageDayRecord } from "../../world/stores/accounting-store.js";
import type {
  BucketCap,
  BucketRecord,
  BucketUse,
  BudgetAlertKey,
  BudgetBucketKey,
  BudgetCharge,
  BudgetRaise,
} from "../../world/stores/budget-store.js";
import type { Platform } from "../../world/chat-ref.js";
import type { ChannelInstallationRecord } from "../../world/stores/installation-store.js";
import type { LoginSessionRecord } from "../../world/stores/login-session-store.js";
import type { AutonomousRunRecord } from "../../world/autonomous/autonomous-run-store.js";
import type { ApprovalVote } from "../../world/stores/approval-vote-store.js";
import type { HookOutcomeRecord, ReplayHistory } from "../../world/policy/event-policy.js";
import { AccountingQueries } from "./accounting-queries.js";
import { ApprovalVoteQueries } from "./approval-vote-queries.js";
import { AutonomousRunQueries } from "./autonomous-run-queries.js";
import { BudgetQueries } from "./budget-queries.js";
import { CardCopyQueries } from "./card-copy-queries.js";
import type { DatabaseClient } from "./database-client.js";
import { DeniedCallQueries } from "./denied-call-queries.js";
import { HookOutcomeQueries } from "./hook-outcome-queries.js";
import { InstallationQueries } from "./installation-queries.js";
import { LoginSessionQueries } from "./login-session-queries.js";
import type { RawSql } from "./raw-sql.js";
import { StoredRuleQueries } from "./stored-rule-queries.js";

/**
 * The Store's side stores over Prisma, each a query class of its own: quorum votes, card copies,
 * sticky denials, stored rules, runs of schedules and triggers, usage and budgets, hooks'
 * outcomes, web console logins and installed apps. {@link PrismaStore} adds chats, messages,
 * events, turns, tool calls, approvals and outbound records (the hot path).
 */
export abstract class PrismaSideStores {
  protected readonly accounting: AccountingQueries;
  protected readonly budgets: BudgetQueries;
  protected readonly logins: LoginSessionQueries;
  protected readonly installations: InstallationQueries;
  protected readonly runs: AutonomousRunQueries;
  protected readonly hooks: HookOutcomeQueries;
  protected readonly rules: StoredRuleQueries;
  protected readonly votes: ApprovalVoteQueries;
  protected readonly copies: CardCopyQueries;
  protected readonly denials: DeniedCallQueries;

  constructor(db: DatabaseClient, clock: () => Date, raw: RawSql, dialect: "sqlite" | "postgresql" | undefined) {
    this.accounting = new AccountingQueries(db, clock, dialect);
    this.budgets = new BudgetQueries(db, clock, dialect);
    this.logins = new LoginSessionQueries(db);
    this.installations = new InstallationQueries(db);
    this.hooks = new HookOutcomeQueries(db, clock);
    this.rules = new StoredRuleQueries(db);
    this.votes = new ApprovalVoteQueries(db);
    this.copies = new CardCopyQueries(db, clock);
    this.denials = new DeniedCallQueries(db);
    this.runs = new AutonomousRunQueries(raw, clock);
  }

  // quorum votes (docs/approvals.md, "Quorum")

  addApprovalVote(vote: ApprovalVote) {
    return this.votes.addApprovalVote(vote);
  }

  listApprovalVotes(approvalId: string) {
    return this.votes.listApprovalVotes(approvalId);
  }

  // approval cards' copies (docs/approvals.md, "Where approval cards go")

  addCardCopies(...args: Parameters<CardCopyQueries["addCardCopies"]>) {
    return this.copies.addCardCopies(...args);
  }

  listCardCopies(approvalId: string) {
    return this.copies.listCardCopies(approvalId);
  }

  getCardCopy(approvalId: string, chatKey: string) {
    return this.copies.getCardCopy(approvalId, chatKey);
  }

  markCardCopy(...args: Parameters<CardCopyQueries["markCardCopy"]>) {
    return this.copies.markCardCopy(...args);
  }

  // sticky denials (docs/approvals.md, "Deny with a reason")

  findDeniedCall(...args: Parameters<DeniedCallQueries["findDeniedCall"]>) {
    return this.denials.findDeniedCall(...args);
  }

  // stored Always allow rules (docs/approvals.md)

  findActiveStoredRule(...args: Parameters<StoredRuleQueries["findActiveStoredRule"]>) {
    return this.rules.findActiveStoredRule(...args);
  }

  useStoredRule(...args: Parameters<StoredRuleQueries["useStoredRule"]>) {
    return this.rules.useStoredRule(...args);
  }

  storedRuleUseOf(toolCallId: string) {
    return this.rules.storedRuleUseOf(toolCallId);
  }

  listStoredRuleUses(...args: Parameters<StoredRuleQueries["listStoredRuleUses"]>) {
    return this.rules.listStoredRuleUses(...args);
  }

  getStoredRule(id: string) {
    return this.rules.getStoredRule(id);
  }

  listStoredRules(...args: Parameters<StoredRuleQueries["listStoredRules"]>) {
    return this.rules.listStoredRules(...args);
  }

  revokeStoredRule(...args: Parameters<StoredRuleQueries["revokeStoredRule"]>) {
    return this.rules.revokeStoredRule(...args);
  }

  // runs of schedules and triggers

  addAutonomousRun(run: Omit<AutonomousRunRecord, "createdAt">) {
    return this.runs.addAutonomousRun(run);
  }

  getAutonomousRun(id: string) {
    return this.runs.getAutonomousRun(id);
  }

  listAutonomousRuns(filter: Parameters<AutonomousRunQueries["listAutonomousRuns"]>[0]) {
    return this.runs.listAutonomousRuns(filter);
  }

  // usage, message rate and the approvals audit

  addUsage(change: UsageChange): Promise<void> {
    return this.accounting.addUsage(change);
  }

  reserveUsage(change: UsageChange, caps: DayCaps): Promise<boolean> {
    return this.accounting.reserveUsage(change, caps);
  }

  listUsage(filter: { world?: string; fromDay?: string }): Promise<UsageDayRecord[]> {
    return this.accounting.listUsage(filter);
  }

  // budgets (docs/budgets.md)

  chargeBudget(change: BudgetCharge, caps: readonly BucketCap[]): Promise<BucketUse[] | undefined> {
    return this.budgets.chargeBudget(change, caps);
  }

  readBuckets(world: string, keys: readonly BudgetBucketKey[]): Promise<BucketRecord[]> {
    return this.budgets.readBuckets(world, keys);
  }

  listBuckets(filter: Parameters<BudgetQueries["listBuckets"]>[0]): Promise<BucketRecord[]> {
    return this.budgets.listBuckets(filter);
  }

  raiseBudget(raise: BudgetRaise): Promise<boolean> {
    return this.budgets.raiseBudget(raise);
  }

  recordBudgetAlert(alert: BudgetAlertKey): Promise<boolean> {
    return this.budgets.recordBudgetAlert(alert);
  }

  countPersonMessages(...range: Parameters<AccountingQueries["countPersonMessages"]>): Promise<number> {
    return this.accounting.countPersonMessages(...range);
  }

  listApprovalsSince(since: Date, world?: string): Promise<ApprovalRecord[]> {
    return this.accounting.listApprovalsSince(since, world);
  }

  // policy hooks' outcomes (a changed text means the chat's held messages are read afresh)

  getHookOutcome(key: string): Promise<HookOutcomeRecord | undefined> {
    return this.hooks.getHookOutcome(key);
  }

  replayHistory(since: Date): Promise<ReplayHistory> {
    return this.hooks.replayHistory(since);
  }

  // web console logins

  createLoginSession(session: LoginSessionRecord): Promise<void> {
    return this.logins.createLoginSession(session);
  }

  findLoginSession(idHash: string, now: Date): Promise<LoginSessionRecord | undefined> {
    return this.logins.findLoginSession(idHash, now);
  }

  deleteLoginSession(idHash: string): Promise<boolean> {
    return this.logins.deleteLoginSession(idHash);
  }

  saveChannelInstallation(record: ChannelInstallationRecord): Promise<void> {
    return this.installations.saveChannelInstallation(record);
  }

  findChannelInstallation(platform: Platform, workspace: string): Promise<ChannelInstallationRecord | undefined> {
    return this.installations.findChannelInstallation(platform, workspace);
  }

  deleteChannelInstallation(platform: Platform, workspace: string): Promise<boolean> {
    return this.installations.deleteChannelInstallation(platform, workspace);
  }
}
