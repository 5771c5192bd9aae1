/*
 * `channels` (Telegram, Slack, Discord, the web console's people) and `web`, the browser console
 * on the service's port.
 */
import { isIP } from "node:net";
import { z } from "zod";
import { booleanText, optionalString } from "./value-schemas.js";

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

/**
 * `channels.slack.oauth`: "Add to Slack" for many workspaces (docs/slack.md). `secretKey` (from
 * `ROUNDTABLE_SECRET_KEY`) seals the installed workspaces' bot tokens in the database.
 */
const slackOAuthSchema = z
  .object({
    clientId: z.string().min(1),
    clientSecret: z.string().min(1),
    stateSecret: z.string().min(16),
    scopes: z.array(z.string().min(1)).min(1).optional(),
    secretKey: optionalString,
  })
  .strict();

export const slackChannelSchema = z
  .object({
    botToken: optionalString,
    oauth: slackOAuthSchema.optional(),
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

export const channelsConfigSchema = z
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
export const webConsoleSchema = z
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

export type ChannelsConfig = z.infer<typeof channelsConfigSchema>;
