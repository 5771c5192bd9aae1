import { z } from "zod";

/**
 * The parts of Discord gateway payloads the adapter reads, validated. Unknown fields pass
 * through untouched (`raw` keeps the whole payload for storage).
 */

const discordUserSchema = z.object({
  id: z.string(),
  username: z.string(),
  global_name: z.string().nullish(),
  bot: z.boolean().optional(),
});
export type DiscordUser = z.infer<typeof discordUserSchema>;

const memberSchema = z.object({
  roles: z.array(z.string()).default([]),
  nick: z.string().nullish(),
  /** Interactions carry the member's permissions as a decimal bit string. */
  permissions: z.string().optional(),
});

const mentionSchema = discordUserSchema.extend({ member: memberSchema.partial().optional() });

const referencedSchema = z.object({
  id: z.string(),
  content: z.string().default(""),
  author: discordUserSchema,
  webhook_id: z.string().optional(),
});

export const discordMessageSchema = z.object({
  id: z.string(),
  channel_id: z.string(),
  guild_id: z.string().optional(),
  author: discordUserSchema,
  member: memberSchema.optional(),
  content: z.string().default(""),
  timestamp: z.string(),
  mentions: z.array(mentionSchema).default([]),
  mention_roles: z.array(z.string()).default([]),
  webhook_id: z.string().optional(),
  application_id: z.string().optional(),
  attachments: z
    .array(z.object({ id: z.string(), filename: z.string(), size: z.number().int().optional(), url: z.string() }))
    .default([]),
  message_reference: z.object({ message_id: z.string().optional(), channel_id: z.string().optional() }).optional(),
  referenced_message: referencedSchema.nullish(),
  /** 0 default, 19 reply; system messages (joins, pins, thread starters) have other types. */
  type: z.number().int().default(0),
});
export type DiscordMessage = z.infer<typeof discordMessageSchema>;

export const discordInteractionSchema = z.object({
  id: z.string(),
  application_id: z.string(),
  type: z.number().int(),
  token: z.string(),
  channel_id: z.string().optional(),
  guild_id: z.string().optional(),
  member: memberSchema.extend({ user: discordUserSchema }).optional(),
  user: discordUserSchema.optional(),
  /** The card pressed (its content holds the arguments *Edit…* offers). */
  message: z.object({ id: z.string(), channel_id: z.string(), content: z.string().optional() }).optional(),
  data: z
    .object({
      custom_id: z.string().optional(),
      component_type: z.number().int().optional(),
      /** Application commands: the command's name. */
      name: z.string().optional(),
      options: z.array(z.object({ name: z.string(), value: z.unknown().optional() })).optional(),
      /** A modal's submission (type 5): its rows of text inputs. */
      components: z
        .array(
          z.object({
            components: z.array(z.object({ custom_id: z.string(), value: z.string().optional() })).optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});
export type DiscordInteraction = z.infer<typeof discordInteractionSchema>;
