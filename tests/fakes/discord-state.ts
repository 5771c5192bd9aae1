/**
 * The state of the fake Discord: users, guilds, channels (text, threads, DMs), messages as a
 * Discord client would show them, webhooks and interactions. REST routes and the gateway both
 * work on it (tests/fakes/discord-rest.ts, tests/fakes/discord-gateway.ts).
 */

export type Json = Record<string, unknown>;

export interface FakeDiscordUser {
  id: string;
  username: string;
  global_name?: string | null;
  bot?: boolean;
  avatar?: string | null;
}

export interface FakeRole {
  id: string;
  name: string;
  /** Permission bits as a decimal string. */
  permissions: string;
}

export interface FakeMember {
  user: FakeDiscordUser;
  roles: string[];
  nick?: string | null;
}

/** Channel types used here: 0 guild text, 1 DM, 11 public thread. */
export interface FakeChannel {
  id: string;
  type: 0 | 1 | 11;
  guild_id?: string;
  parent_id?: string;
  name?: string;
  /** DMs: the person on the other side. */
  recipients?: FakeDiscordUser[];
  /** Whether the bots may manage webhooks here (Manage Webhooks permission). */
  manageWebhooks: boolean;
}

export interface FakeAttachment {
  id: string;
  filename: string;
  size: number;
  content: string;
  /** A person's attachment: the bytes the CDN serves. */
  bytes?: Uint8Array;
}

export interface StoredDiscordMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: FakeDiscordUser;
  content: string;
  components: Json[];
  embeds: Json[];
  attachments: FakeAttachment[];
  flags: number;
  webhook_id?: string;
  application_id?: string;
  message_reference?: { message_id: string; channel_id: string; guild_id?: string };
  /** Token of the bot that posted it (absent for people and webhooks). */
  sentByToken?: string;
  /** The nonce it was posted with, if any. */
  nonce?: string;
  timestamp: string;
  edited_timestamp: string | null;
  editCount: number;
  /** Every content the message had, oldest first (the first is the original). */
  history: string[];
  deleted: boolean;
}

export interface FakeWebhook {
  id: string;
  token: string;
  channel_id: string;
  guild_id?: string;
  name: string;
  application_id: string | null;
  /** The bot token that created it. */
  createdByToken: string;
}

export interface FakeInteraction {
  id: string;
  token: string;
  applicationId: string;
  channelId: string;
  messageId: string;
  user: FakeDiscordUser;
  dispatchedAt: number;
  /** Callback types received (4 reply, 5 deferred reply, 6 deferred update, 7 update). */
  callbacks: { type: number; data?: Json; at: number }[];
  /** Replies only the clicker sees (ephemeral callbacks and follow-ups). */
  ephemeral: string[];
  /** Visible follow-ups posted into the channel. */
  followups: string[];
}

let last = 0n;

/**
 * A new snowflake, increasing, as a string: like Discord's, the creation time in milliseconds
 * since 2015 shifted 22 bits (so `after=<snowflake of a time>` bounds a read as on Discord).
 */
export function snowflake(): string {
  const now = (BigInt(Date.now()) - 1_420_070_400_000n) << 22n;
  last = now > last ? now : last + 1n;
  return String(last);
}

export const messageContentFlag = 1 << 18;
export const messageContentLimitedFlag = 1 << 19;
export const ephemeralFlag = 1 << 6;

/** Every message, channel, webhook and interaction the fake knows. */
export class DiscordState {
  /** Where attachment URLs point (the fake serves them at `/attachments/<channel>/<id>/<name>`). */
  cdnOrigin = "https://cdn.example";
  readonly users = new Map<string, FakeDiscordUser>();
  readonly guilds = new Map<string, { id: string; name: string; ownerId: string; roles: FakeRole[] }>();
  readonly members = new Map<string, FakeMember>();
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, StoredDiscordMessage>();
  readonly webhooks = new Map<string, FakeWebhook>();
  readonly interactions = new Map<string, FakeInteraction>();

  memberKey(guildId: string, userId: string): string {
    return `${guildId}:${userId}`;
  }

  member(guildId: string, userId: string): FakeMember | undefined {
    return this.members.get(this.memberKey(guildId, userId));
  }

  messagesIn(channelId: string): StoredDiscordMessage[] {
    return [...this.messages.values()].filter((message) => message.channel_id === channelId && !message.deleted);
  }

  addMessage(
    message: Omit<StoredDiscordMessage, "id" | "timestamp" | "edited_timestamp" | "editCount" | "history" | "deleted">,
  ): StoredDiscordMessage {
    const stored: StoredDiscordMessage = {
      ...message,
      id: snowflake(),
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      editCount: 0,
      history: [message.content],
      deleted: false,
    };
    this.messages.set(stored.id, stored);
    return stored;
  }

  /** A message as the API and the gateway show it. */
  toPayload(message: StoredDiscordMessage): Json {
    const reference = message.message_reference;
    const referenced = reference ? this.messages.get(reference.message_id) : undefined;
    const guildId = message.guild_id;
    const member = guildId && !message.webhook_id ? this.member(guildId, message.author.id) : undefined;
    return {
      id: message.id,
      type: reference ? 19 : 0,
      channel_id: message.channel_id,
      ...(guildId ? { guild_id: guildId } : {}),
      author: { ...message.author, discriminator: "0", avatar: message.author.avatar ?? null },
      ...(member ? { member: { roles: member.roles, nick: member.nick ?? null, joined_at: message.timestamp } } : {}),
      content: message.content,
      timestamp: message.timestamp,
      edited_timestamp: message.edited_timestamp,
      tts: false,
      mention_everyone: false,
      mentions: this.mentionedUsers(message.content, guildId),
      mention_roles: [...message.content.matchAll(/<@&(\d+)>/g)].map((match) => match[1]),
      attachments: message.attachments.map(({ content: _content, bytes: _bytes, ...attachment }) => ({
        ...attachment,
        url: `${this.cdnOrigin}/attachments/${message.channel_id}/${attachment.id}/${attachment.filename}?ex=6a1b&is=6a0a&hm=f00d`,
        proxy_url: `${this.cdnOrigin}/attachments/${message.channel_id}/${attachment.id}/${attachment.filename}`,
      })),
      embeds: message.embeds,
      components: message.components,
      pinned: false,
      flags: message.flags,
      ...(message.nonce === undefined ? {} : { nonce: message.nonce }),
      ...(message.webhook_id ? { webhook_id: message.webhook_id } : {}),
      ...(message.application_id ? { application_id: message.application_id } : {}),
      ...(reference ? { message_reference: { type: 0, ...reference } } : {}),
      ...(referenced ? { referenced_message: this.toPayload(withoutReference(referenced)) } : {}),
    };
  }

  private mentionedUsers(content: string, guildId: string | undefined): Json[] {
    const ids = [...new Set([...content.matchAll(/<@!?(\d+)>/g)].map((match) => match[1] as string))];
    return ids.flatMap((id) => {
      const user = this.users.get(id);
      if (!user) return [];
      const member = guildId ? this.member(guildId, id) : undefined;
      return [
        {
          ...user,
          discriminator: "0",
          avatar: user.avatar ?? null,
          ...(member
            ? { member: { roles: member.roles, nick: member.nick ?? null, joined_at: new Date(0).toISOString() } }
            : {}),
        },
      ];
    });
  }
}

function withoutReference(message: StoredDiscordMessage): StoredDiscordMessage {
  const { message_reference: _reference, ...rest } = message;
  return rest;
}
