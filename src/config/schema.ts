/*
 * The configuration's schema (docs/configuration.md): providers, agents, the queue, files,
 * schedules and triggers here; worlds (with approvals and hooks), tools and channels in their
 * own schema files, whose names this file exports too.
 */
import { z } from "zod";
import { channelsConfigSchema, webConsoleSchema } from "./channels-schema.js";
import { toolsConfigSchema } from "./tools-schema.js";
import { durationSchema, nameSchema, numeric, optionalString } from "./value-schemas.js";
import { hooksConfigSchema, worldConfigSchema } from "./world-schema.js";

export {
  type ChannelsConfig,
  discordChannelSchema,
  slackChannelSchema,
  telegramChannelSchema,
} from "./channels-schema.js";
export {
  type McpServerConfig,
  type ShellConfig,
  shellConfigSchema,
  type ToolRule,
  type ToolsConfig,
  toolsConfigSchema,
} from "./tools-schema.js";
export {
  type ApprovalsConfig,
  approvalsConfigSchema,
  type HooksConfig,
  hooksConfigSchema,
  type WorldConfig,
} from "./world-schema.js";

/** `scripted`: the built-in canned model (no network, no key), for demos and trying a setup. */
const providerTypeSchema = z.enum(["openai", "anthropic", "google", "scripted"]);
export type ProviderType = z.infer<typeof providerTypeSchema>;

/** `providers.<name>`: the keys openai, anthropic, google and scripted imply their type. */
export const providerConfigSchema = z
  .object({
    type: providerTypeSchema.optional(),
    apiKey: optionalString,
    baseUrl: optionalString,
    /** openai only: `chat` (Chat Completions, default) or `responses`. */
    api: z.enum(["chat", "responses"]).default("chat"),
    maxRetries: numeric(z.number().int().min(0).max(10)).default(3),
    timeout: durationSchema.default(120_000),
  })
  .strict();

const agentLimitsSchema = z
  .object({
    maxSteps: numeric(z.number().int().min(1)).default(10),
    deadline: durationSchema.default(300_000),
    maxToolCallsPerStep: numeric(z.number().int().min(1)).default(8),
    /** How many times the same tool with the same arguments may run in one turn. */
    maxRepeats: numeric(z.number().int().min(1)).default(2),
  })
  .strict();

/** `agents[].price`: USD per million tokens. */
const priceSchema = z.object({ input: numeric(z.number().min(0)), output: numeric(z.number().min(0)) }).strict();
export type Price = z.infer<typeof priceSchema>;

const agentConfigSchema = z
  .object({
    name: nameSchema,
    /** The name shown in chats (default the name). */
    displayName: z.string().min(1).max(80).optional(),
    /** A picture for the agent's posts where the platform allows (Slack, Discord, web). */
    avatarUrl: z.string().url().optional(),
    provider: z.string(),
    model: z.string().min(1),
    systemPrompt: z.string().default(""),
    /** One line saying what the agent is for (`/agents` shows it). */
    description: z
      .string()
      .max(300)
      .regex(/^[^\r\n]*$/, "expected one line of text")
      .optional(),
    tools: z.array(z.string()).default([]),
    temperature: numeric(z.number().min(0).max(2)).optional(),
    maxOutputTokens: numeric(z.number().int().min(1)).optional(),
    /** Context budget in tokens; defaults by model. */
    contextBudget: numeric(z.number().int().min(256)).optional(),
    limits: agentLimitsSchema.default(agentLimitsSchema.parse({})),
    /** USD per million input and output tokens (else the known price list, else unpriced). */
    price: priceSchema.optional(),
    /** Images reach the model as image input (default on; `false` names them as files only). */
    vision: z.boolean().default(true),
    /** An agent's own Telegram bot (optional). */
    telegram: z
      .object({ token: z.string().min(1) })
      .strict()
      .optional(),
    /** An agent's own Discord bot (optional): it posts as that bot instead of the channel webhook. */
    discord: z
      .object({ token: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict();

/**
 * `queue`: the stored work queue. `concurrency` is how many steps of this process use the CPU
 * or the database at once; a step waiting for its model, a tool, an edit interval or a
 * platform's retry time holds none. `inFlight` is how many steps may be under way at once
 * (waiting ones included: answers in flight). One chat's steps always run in order.
 */
const queueConfigSchema = z
  .object({
    concurrency: numeric(z.number().int().min(1).max(1000)).default(32),
    inFlight: numeric(z.number().int().min(1).max(10_000)).default(1000),
  })
  .strict();

/**
 * `files`: inbound files and images. Each file is read up to `maxBytes` (a bigger one is refused
 * with a line in the chat), a message's files up to `maxMessageBytes` together, each download
 * within `fetchTimeout`. Voice and audio are transcribed by `transcribe` (a provider's name)
 * with `transcribeModel`.
 */
export const filesConfigSchema = z
  .object({
    maxBytes: numeric(z.number().int().min(1)).default(20 * 1024 * 1024),
    maxMessageBytes: numeric(z.number().int().min(1)).default(50 * 1024 * 1024),
    fetchTimeout: durationSchema.default(30_000),
    /**
     * A provider (of type openai: OpenAI or a compatible server) whose `/audio/transcriptions`
     * turns voice notes and audio into the message's text; absent, audio is named as a file.
     */
    transcribe: nameSchema.optional(),
    transcribeModel: z.string().min(1).default("whisper-1"),
    /**
     * Bytes a world's `inbox/` may hold (docs/sandbox.md, "Inbound files"): past it the oldest
     * messages' directories go (the database keeps the files). 0: no limit.
     */
    inboxMaxBytes: numeric(z.number().int().min(0)).default(0),
  })
  .strict();

/**
 * `schedules` and `triggers` (docs/schedules-and-triggers.md): agents that act on their own. A
 * schedule gives `agent` a turn in `chat` at each due time of `cron` (five fields, in
 * `timezone`); a trigger does at each signed `POST /triggers/<name>`.
 */
const autonomousChatSchema = z
  .object({
    platform: z.enum(["slack", "telegram", "discord", "console", "web"]),
    id: z.union([z.string().min(1), z.number()]).transform(String),
  })
  .strict();

const scheduleConfigSchema = z
  .object({
    name: nameSchema,
    world: z.string().min(1),
    chat: autonomousChatSchema,
    agent: z.string().min(1),
    cron: z.string().min(1),
    timezone: z.string().min(1).default("UTC"),
    prompt: z.string().min(1),
    /** After downtime: `once` runs the latest missed occurrence (at most 24 h old), `skip` none. */
    missed: z.enum(["skip", "once"]).default("once"),
  })
  .strict();
export type ScheduleConfig = z.infer<typeof scheduleConfigSchema>;

const triggerConfigSchema = z
  .object({
    name: nameSchema,
    world: z.string().min(1),
    chat: autonomousChatSchema,
    agent: z.string().min(1),
    secret: z.string().min(1),
    /** `{{body}}` is replaced by the request body (JSON pretty-printed, cut at 16 KiB). */
    prompt: z.string().min(1),
  })
  .strict();
export type TriggerConfig = z.infer<typeof triggerConfigSchema>;

export const configSchema = z
  .object({
    providers: z.record(nameSchema, providerConfigSchema).default({}),
    agents: z.array(agentConfigSchema).default([]),
    worlds: z.array(worldConfigSchema).default([]),
    tools: toolsConfigSchema.default(toolsConfigSchema.parse({})),
    channels: channelsConfigSchema.default({}),
    web: webConsoleSchema.default(webConsoleSchema.parse({})),
    queue: queueConfigSchema.default(queueConfigSchema.parse({})),
    files: filesConfigSchema.default(filesConfigSchema.parse({})),
    schedules: z.array(scheduleConfigSchema).default([]),
    triggers: z.array(triggerConfigSchema).default([]),
    /** The policy module every world runs first (docs/hooks.md). */
    hooks: hooksConfigSchema.optional(),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type ProviderConfig = z.infer<typeof providerConfigSchema>;
export type AgentConfig = z.infer<typeof agentConfigSchema>;
