import { z } from "zod";

/**
 * The parts of a Bot API `Update` the adapter reads, validated at the boundary. Fields the
 * adapter does not read are allowed and ignored (the raw update is stored as it came).
 */
const telegramUserSchema = z.object({
  id: z.number().int(),
  is_bot: z.boolean(),
  first_name: z.string(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});

const telegramChatSchema = z.object({
  id: z.number().int(),
  type: z.enum(["private", "group", "supergroup", "channel"]),
  title: z.string().optional(),
  username: z.string().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  is_forum: z.boolean().optional(),
});

const messageEntitySchema = z.object({
  type: z.string(),
  offset: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
  user: telegramUserSchema.optional(),
});

const replySchema = z.object({
  message_id: z.number().int(),
  from: telegramUserSchema.optional(),
});

const fileFields = {
  file_id: z.string(),
  file_unique_id: z.string(),
  file_size: z.number().int().optional(),
};

/** `photo` (one entry per size), `document`, `voice`, `audio`: what `getFile` needs. */
const photoSizeSchema = z.object({ ...fileFields, width: z.number().int(), height: z.number().int() });
const documentSchema = z.object({ ...fileFields, file_name: z.string().optional() });

const telegramMessageSchema = z.object({
  message_id: z.number().int(),
  date: z.number().int(),
  chat: telegramChatSchema,
  from: telegramUserSchema.optional(),
  sender_chat: telegramChatSchema.optional(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  text: z.string().optional(),
  entities: z.array(messageEntitySchema).optional(),
  caption: z.string().optional(),
  caption_entities: z.array(messageEntitySchema).optional(),
  reply_to_message: replySchema.optional(),
  photo: z.array(photoSizeSchema).optional(),
  document: documentSchema.optional(),
  voice: documentSchema.optional(),
  audio: documentSchema.optional(),
});

/** A callback query's message may be "inaccessible" (date 0): only chat and id are sure. */
const callbackMessageSchema = z.object({
  message_id: z.number().int(),
  chat: telegramChatSchema,
  /** The card's text and entities: *Edit…* offers the arguments from its `pre` block. */
  text: z.string().optional(),
  entities: z.array(messageEntitySchema).optional(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
});

const callbackQuerySchema = z.object({
  id: z.string(),
  from: telegramUserSchema,
  message: callbackMessageSchema.optional(),
  data: z.string().optional(),
});

export const telegramUpdateSchema = z.object({
  update_id: z.number().int(),
  message: telegramMessageSchema.optional(),
  callback_query: callbackQuerySchema.optional(),
});

export type TelegramUser = z.infer<typeof telegramUserSchema>;
export type TelegramChat = z.infer<typeof telegramChatSchema>;
export type TelegramMessage = z.infer<typeof telegramMessageSchema>;
export type TelegramEntity = z.infer<typeof messageEntitySchema>;
export type TelegramCallbackQuery = z.infer<typeof callbackQuerySchema>;
