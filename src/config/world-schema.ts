/*
 * `worlds[]` (docs/configuration.md): a world's agents, limits and budgets, who may decide its
 * approval cards and how (`approvals`), and its policy module (`hooks`).
 */
import { z } from "zod";
import { booleanText, durationSchema, nameSchema, numeric } from "./value-schemas.js";

/** `worlds[].limits.perPerson`, `perChat`, `perAgent.<agent>`: day and month caps of one subject. */
const budgetCapsSchema = z
  .object({
    costPerDay: numeric(z.number().positive()).optional(),
    tokensPerDay: numeric(z.number().int().min(1)).optional(),
    costPerMonth: numeric(z.number().positive()).optional(),
    tokensPerMonth: numeric(z.number().int().min(1)).optional(),
  })
  .strict();

/** `worlds[].limits`: a person's message rate and the world's daily budget. */
const worldLimitsSchema = z
  .object({
    /** Messages that would start a turn, per person, over a sliding 60 seconds. */
    messagesPerMinute: numeric(z.number().int().min(1)).default(20),
    /** Model tokens (input + output) per UTC day for the whole world; none by default. */
    tokensPerDay: numeric(z.number().int().min(1)).optional(),
    /** USD per UTC day for the whole world (from `agents[].price`); none by default. */
    costPerDay: numeric(z.number().positive()).optional(),
    // Budgets (docs/budgets.md): month caps, caps per person (chain starter), chat and agent,
    // alerts, what happens past a cap, and what an unpriced model counts against.
    costPerMonth: numeric(z.number().positive()).optional(),
    tokensPerMonth: numeric(z.number().int().min(1)).optional(),
    perPerson: budgetCapsSchema.optional(),
    perChat: budgetCapsSchema.optional(),
    perAgent: z.record(z.string(), budgetCapsSchema).optional(),
    /** Percent of a cap whose first crossing posts one notice per cap, threshold and period (default 80, 100). */
    alerts: z.array(numeric(z.number().int().min(1).max(100))).optional(),
    /** Past a cap: `stop` (a notice, the default) or `ask` (an approval card that may raise the cap). */
    overBudget: z.enum(["stop", "ask"]).optional(),
    /** What an approved `ask` adds to the cap, in percent of it (default 100). */
    raiseBy: numeric(z.number().positive()).optional(),
    /** `count-tokens`: a model without a price counts only against token caps (default: a cost cap refuses it). */
    unpriced: z.enum(["refuse", "count-tokens"]).optional(),
  })
  .strict();

/**
 * `hooks` (top level and `worlds[].hooks`): a policy module whose `onEvent` sees every message
 * and tool call before the default path acts (docs/hooks.md); `timeout` per call.
 */
export const hooksConfigSchema = z
  .object({
    module: z
      .string()
      .min(1)
      .refine((file) => /\.(js|mjs|ts)$/.test(file), "expected a .js, .mjs or .ts file"),
    timeout: durationSchema.default(5_000),
  })
  .strict();
export type HooksConfig = z.infer<typeof hooksConfigSchema>;

const approversSchema = z.record(z.string(), z.array(z.union([z.string(), z.number()]).transform(String)));

/** `approvals.channel`: a chat on a chat platform, by its id there (docs/approvals.md). */
const approvalsChannelSchema = z
  .object({
    platform: z.enum(["slack", "telegram", "discord"]),
    id: z.union([z.string().min(1), z.number()]).transform(String),
  })
  .strict();

/**
 * `worlds[].approvals` (docs/approvals.md): how a world's cards are decided beyond one click.
 * Every key is optional.
 */
export const approvalsConfigSchema = z
  .object({
    /** Offer *Always allow* to deciders listed by id. */
    allowAlways: booleanText(z.boolean()).default(false),
    /** How long a stored *Always allow* rule lasts. */
    allowAlwaysFor: durationSchema.default(30 * 24 * 3_600_000),
    /** `"<tool or server__*>": N`: such a call runs only after N different approvers approved it (not the requester). */
    quorum: z.record(z.string(), numeric(z.number().int().min(1).max(20))).default({}),
    /** Re-notify the approvers once, this long after the card (e.g. `10m`). */
    remind: durationSchema.optional(),
    /** After `after` with no decision, `to` (ids per platform) may decide the card too, and are told. */
    escalate: z.object({ after: durationSchema, to: approversSchema }).strict().optional(),
    /** Where cards go: the chat (default), the approvers' direct messages, or both. */
    route: z.enum(["chat", "dm", "both"]).default("chat"),
    /** One approvals chat, on any configured platform, that gets a copy of every card. */
    channel: approvalsChannelSchema.optional(),
    /** Cards carry *Edit…*: an approver edits the arguments, then the edited call runs once. */
    edit: booleanText(z.boolean()).default(false),
  })
  .strict();
export type ApprovalsConfig = z.infer<typeof approvalsConfigSchema>;

export const worldConfigSchema = z
  .object({
    name: nameSchema,
    agents: z.array(z.string()).min(1),
    defaultAgent: z.string().optional(),
    turnLimit: numeric(z.number().int().min(1)).default(6),
    respond: z.enum(["addressed", "all"]).default("addressed"),
    afterDenial: z.enum(["continue", "wait"]).default("continue"),
    workdir: z.string().optional(),
    approvers: approversSchema.default({}),
    /** Who may start turns, per platform: ids, `role:<name>`, `admins`, `*` (default `*`). */
    members: approversSchema.default({}),
    limits: worldLimitsSchema.default(worldLimitsSchema.parse({})),
    approvalTimeout: durationSchema.default(1_800_000),
    /** Where cards go and how they are decided (docs/approvals.md). */
    approvals: approvalsConfigSchema.default(approvalsConfigSchema.parse({})),
    /** Let other bots' messages start turns. */
    allowBots: booleanText(z.boolean()).default(false),
    /** Let platforms fetch previews of links in the agents' posts (off: a fetch can leak what an answer holds). */
    linkPreviews: booleanText(z.boolean()).default(false),
    /** The world's own policy module, run after the top-level one. */
    hooks: hooksConfigSchema.optional(),
  })
  .strict();

export type WorldConfig = z.infer<typeof worldConfigSchema>;
