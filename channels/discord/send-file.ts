import { createHash } from "node:crypto";
import { type REST, Routes } from "discord.js";
import type { Author, ChatRef, OutboundFile, SendPartOptions } from "../../src/world/channel-adapter.js";
import { toPlatformError } from "./api.js";

/** Discord's longest message content. */
const maxContentLength = 2000;

/** Where a file is posted as an agent: the channel's webhook, under the agent's name and avatar. */
export interface DiscordWebhookTarget {
  id: string;
  token: string;
}

export interface DiscordFileOptions extends SendPartOptions {
  /** Post through this webhook (as the author's name and avatar) instead of as the bot. */
  webhook?: DiscordWebhookTarget;
}

/**
 * Post one file into a Discord chat (its thread when it has one) as a multipart message: the
 * file as `files[0]`, the caption and `attachments: [{ id: 0, filename }]` in `payload_json`,
 * no pings. As the bot (an agent's own bot's REST when it has one) an agent's name leads the
 * caption in bold; through a webhook the message carries the agent's name and avatar instead.
 * With `options.key`, a bot post carries a nonce made from it with `enforce_nonce`, so Discord
 * answers a repeat with the message it made (webhooks take no nonce). Returns the message id.
 */
export async function sendDiscordFile(
  rest: REST,
  chat: ChatRef,
  author: Author,
  file: OutboundFile,
  options: DiscordFileOptions = {},
): Promise<string> {
  const channelId = chat.thread ?? chat.channel;
  const viaWebhook = options.webhook !== undefined;
  const body: Record<string, unknown> = {
    content: contentFor(author, file.caption, !viaWebhook),
    attachments: [{ id: 0, filename: file.name }],
    allowed_mentions: { parse: [] },
  };
  const files = [{ name: file.name, data: Buffer.from(file.bytes), contentType: file.mimeType }];
  try {
    if (options.webhook !== undefined) {
      if (author.kind === "agent") {
        body.username = author.displayName ?? author.name;
        if (author.avatarUrl !== undefined) body.avatar_url = author.avatarUrl;
      }
      const query = new URLSearchParams({ wait: "true" });
      if (chat.thread !== undefined) query.set("thread_id", chat.thread);
      const sent = (await rest.post(Routes.webhook(options.webhook.id, options.webhook.token), {
        body,
        files,
        query,
        auth: false,
      })) as { id: string };
      return sent.id;
    }
    if (options.key !== undefined) {
      body.nonce = fileNonce(options.key.key);
      body.enforce_nonce = true;
    }
    if (options.replyTo !== undefined)
      body.message_reference = { message_id: options.replyTo, fail_if_not_exists: false };
    const sent = (await rest.post(Routes.channelMessages(channelId), { body, files })) as { id: string };
    return sent.id;
  } catch (error) {
    throw toPlatformError(error, "create message with a file");
  }
}

/** Discord's nonce is at most 25 characters: a hash of the part's key, the same on every run. */
export function fileNonce(key: string): string {
  return createHash("sha256").update(key).digest("base64url").slice(0, 25);
}

function contentFor(author: Author, caption: string | undefined, named: boolean): string {
  const text = caption ?? "";
  const lead = named && author.kind === "agent" ? `**${author.displayName ?? author.name}**` : "";
  const content = lead === "" ? text : text === "" ? lead : `${lead}: ${text}`;
  return content.length <= maxContentLength ? content : `${content.slice(0, maxContentLength - 1)}…`;
}
