import { isIP } from "node:net";
import { z } from "zod";
import { parseDuration } from "./duration.js";

/** A duration such as `45s`, `30m`, `2h` (or a number of seconds), as milliseconds. */
const durationSchema = z.union([z.string(), z.number()]).transform((value, context) => {
  const ms = parseDuration(value);
  if (ms === undefined) {
    context.addIssue({
      code: "custom",
      message: `expected a duration such as 45s, 30m or 2h, got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  }
  return ms;
});

/**
 * A number that may also be written as text: `${VAR}` values are text, so `turnLimit: ${TURNS:-6}`
 * reads as 6. Anything that is not a plain number stays as it is (and fails as before).
 */
function numeric<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    (value) => (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value),
    schema,
  );
}

/** A boolean that may also be written as the text `true` or `false` (from `${VAR}`). */
function booleanText<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === "true" ? true : value === "false" ? false : value), schema);
}

const nameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "expected a name of letters, digits, '-' and '_', starting with a letter");

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === "" ? undefined : value));

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
  })
  .strict();
export type ApprovalsConfig = z.infer<typeof approvalsConfigSchema>;

const worldConfigSchema = z
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

const stdioServerSchema = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    timeout: durationSchema.optional(),
  })
  .strict();

const httpServerSchema = z
  .object({
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).default({}),
    timeout: durationSchema.optional(),
  })
  .strict();

const mcpServerSchema = z.union([stdioServerSchema, httpServerSchema]);
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

const toolRuleSchema = z
  .object({
    /** Exact tool name or `<server>__*`. */
    tool: z.string().min(1),
    /** Per-argument regular expressions that must all match (arrays are joined with spaces). */
    match: z.record(z.string(), z.string()).default({}),
    /** `allow`: runs without asking (an `always` rule); `deny`: blocked. */
    action: z.enum(["allow", "deny"]),
  })
  .strict();
export type ToolRule = z.infer<typeof toolRuleSchema>;

export const shellConfigSchema = z
  .object({
    enabled: booleanText(z.boolean()).default(true),
    timeout: durationSchema.default(60_000),
    maxOutputBytes: numeric(z.number().int().min(256)).default(16_384),
    /** Environment variables passed through to commands. */
    envAllowlist: z.array(z.string()).default(["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"]),
    /** What a call sees of the file system (docs/sandbox.md): `private` hides the service's own state. */
    sandbox: z.enum(["private", "strict", "none"]).default("private"),
    /** False: each call runs without network (a network namespace with only loopback). */
    network: booleanText(z.boolean()).default(true),
  })
  .strict();

export const toolsConfigSchema = z
  .object({
    shell: shellConfigSchema.default(shellConfigSchema.parse({})),
    mcpServers: z
      .record(
        nameSchema.refine(
          (name) => !name.includes("__"),
          "expected a server name without '__' (it separates server and tool)",
        ),
        mcpServerSchema,
      )
      .default({}),
    mcpTimeout: durationSchema.default(60_000),
    approval: z.record(z.string(), z.enum(["never", "required"])).default({}),
    rules: z.array(toolRuleSchema).default([]),
  })
  .strict();

const chatsSchema = z.record(z.string(), z.string()).default({});

export const telegramChannelSchema = z
  .object({
    token: optionalString,
    apiRoot: optionalString,
    webhookUrl: optionalString,
    webhookSecret: optionalString,
    chats: chatsSchema,
  })
  .strict();

export const slackChannelSchema = z
  .object({
    botToken: optionalString,
    signingSecret: optionalString,
    appToken: optionalString,
    apiUrl: optionalString,
    chats: chatsSchema,
    /** Answers go into the thread of the message they answer, or into the channel. */
    replyIn: z.enum(["thread", "channel"]).default("thread"),
    /** `edit`: post, then `chat.update`; `native`: Slack's `chat.startStream` streams. */
    stream: z.enum(["edit", "native"]).default("edit"),
    /** Slack's Agent messaging experience (manifest `features.agent_view`): a DM conversation per thread, suggested prompts. */
    agentView: z.boolean().default(false),
    /** The app's manifest as pasted at api.slack.com (a path): `roundtable check` names what it lacks. */
    manifest: optionalString,
  })
  .strict();

export const discordChannelSchema = z
  .object({
    token: optionalString,
    apiUrl: optionalString,
    chats: chatsSchema,
  })
  .strict();

/** A person's name on the web console (as `approvers.web` and `members.web` list it). */
const webPersonNameSchema = z
  .string()
  .regex(/^[\p{L}\p{N}][\p{L}\p{N}._-]{0,39}$/u, "expected a name of 1–40 letters, digits, '.', '_' or '-'");

/**
 * `channels.web`: the web console's people. `users` gives each person a token of their own
 * (`{ ana: ${ANA_WEB_TOKEN} }`); their name then comes from the login, never from the page.
 */
const webChannelSchema = z
  .object({
    users: z
      .record(webPersonNameSchema, z.string().min(12, "a web user's token needs at least 12 characters"))
      .default({}),
  })
  .strict();

const channelsConfigSchema = z
  .object({
    telegram: telegramChannelSchema.optional(),
    slack: slackChannelSchema.optional(),
    discord: discordChannelSchema.optional(),
    web: webChannelSchema.optional(),
  })
  .strict();

/** An IP address (`127.0.0.1`, `::1`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
const ipRangeSchema = z.string().superRefine((value, context) => {
  const [address = "", prefix, ...rest] = value.trim().split("/");
  const family = isIP(address);
  const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  if (family === 0 || rest.length > 0 || !prefixOk) {
    context.addIssue({
      code: "custom",
      message: `expected an IP address or a CIDR range such as 127.0.0.1, ::1 or 10.0.0.0/8, got ${JSON.stringify(value)}`,
    });
  }
});

/** `web`: the browser console on the service's port (`WEB_CONSOLE_TOKEN` fills `token`). */
const webConsoleSchema = z
  .object({
    enabled: booleanText(z.boolean()).default(true),
    /**
     * The shared token (`WEB_CONSOLE_TOKEN`); when unset, `start` generates one and keeps it in
     * `./data/web-console-token`. Every request needs a login either way.
     */
    token: optionalString,
    /**
     * The reverse proxies in front of the console (addresses or CIDR ranges): from these peers the
     * client's address is the right-most `X-Forwarded-For` entry that is not itself one of them.
     */
    trustedProxies: z
      .preprocess(
        (value) =>
          typeof value === "string"
            ? value
                .split(",")
                .map((entry) => entry.trim())
                .filter((entry) => entry !== "")
            : value,
        z.array(ipRangeSchema),
      )
      .default([]),
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
export type WorldConfig = z.infer<typeof worldConfigSchema>;
export type ToolsConfig = z.infer<typeof toolsConfigSchema>;
export type ShellConfig = z.infer<typeof shellConfigSchema>;
export type ChannelsConfig = z.infer<typeof channelsConfigSchema>;
