import { z } from "zod";

/** A `message` or `app_mention` event, as far as the service reads it. */
export const slackMessageEventSchema = z
  .object({
    type: z.enum(["message", "app_mention"]),
    subtype: z.string().optional(),
    channel: z.string().min(1),
    channel_type: z.string().optional(),
    user: z.string().optional(),
    bot_id: z.string().optional(),
    username: z.string().optional(),
    text: z.string().optional(),
    ts: z.string().regex(/^\d+\.\d+$/),
    thread_ts: z
      .string()
      .regex(/^\d+\.\d+$/)
      .optional(),
    team: z.string().optional(),
    /** A `file_share` message's files (`url_private_download` needs the bot token, scope `files:read`). */
    files: z
      .array(
        z
          .object({
            id: z.string(),
            name: z.string().optional(),
            size: z.number().int().optional(),
            url_private_download: z.string().optional(),
            url_private: z.string().optional(),
          })
          .loose(),
      )
      .optional(),
  })
  .loose();

export type SlackMessageEvent = z.infer<typeof slackMessageEventSchema>;

/** The Events API wrapper around an event (HTTP body, or a Socket Mode envelope's payload). */
export const slackEventEnvelopeSchema = z
  .object({
    type: z.literal("event_callback"),
    team_id: z.string().optional(),
    event_id: z.string().min(1),
    event: z.object({ type: z.string() }).loose(),
  })
  .loose();

/** A button press on a message (`block_actions`). */
export const slackBlockActionsSchema = z
  .object({
    type: z.literal("block_actions"),
    team: z.object({ id: z.string() }).loose().nullable().optional(),
    user: z.object({ id: z.string().min(1), username: z.string().optional(), name: z.string().optional() }).loose(),
    channel: z
      .object({ id: z.string().min(1) })
      .loose()
      .optional(),
    container: z
      .object({
        message_ts: z.string().optional(),
        channel_id: z.string().optional(),
        thread_ts: z.string().optional(),
      })
      .loose()
      .optional(),
    message: z
      .object({ ts: z.string(), thread_ts: z.string().optional(), blocks: z.array(z.unknown()).optional() })
      .loose()
      .optional(),
    trigger_id: z.string().optional(),
    actions: z
      .array(
        z.object({ action_id: z.string(), value: z.string().optional(), action_ts: z.string().optional() }).loose(),
      )
      .min(1),
  })
  .loose();
