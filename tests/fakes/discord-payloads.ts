import type { DiscordState, FakeChannel, Json } from "./discord-state.js";

/** A channel as Discord sends it (threads with their metadata). */
export function channelPayload(channel: FakeChannel): Json {
  const { manageWebhooks: _manage, ...payload } = channel;
  return {
    ...payload,
    ...(channel.type === 11
      ? {
          thread_metadata: {
            archived: false,
            locked: false,
            auto_archive_duration: 1440,
            archive_timestamp: new Date().toISOString(),
          },
          owner_id: "0",
          member_count: 1,
          message_count: 0,
        }
      : {}),
  };
}

/** A guild as the gateway's GUILD_CREATE carries it, with its channels and threads. */
export function guildPayload(state: DiscordState, id: string): Json {
  const guild = state.guilds.get(id);
  if (!guild) throw new Error("unknown guild");
  const channels = [...state.channels.values()].filter((channel) => channel.guild_id === id);
  return {
    id,
    name: guild.name,
    icon: null,
    owner_id: guild.ownerId,
    roles: guild.roles.map((role, position) => ({
      ...role,
      position,
      color: 0,
      hoist: false,
      managed: false,
      mentionable: true,
      flags: 0,
    })),
    emojis: [],
    stickers: [],
    features: [],
    member_count: 1,
    large: false,
    unavailable: false,
    joined_at: new Date(0).toISOString(),
    channels: channels.filter((channel) => channel.type !== 11).map((channel) => channelPayload(channel)),
    threads: channels.filter((channel) => channel.type === 11).map((channel) => channelPayload(channel)),
    members: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    preferred_locale: "en-US",
    premium_tier: 0,
    system_channel_flags: 0,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
  };
}

/** JSON, or multipart with `payload_json` and `files[n]` parts (what discord.js sends with files). */
export async function parseBody(
  raw: Buffer,
  contentType: string,
): Promise<{ body: unknown; files: { filename: string; content: string; bytes: Uint8Array; part: string }[] }> {
  if (raw.length === 0) return { body: {}, files: [] };
  if (contentType.startsWith("multipart/form-data")) {
    const form = await new Response(raw, { headers: { "content-type": contentType } }).formData();
    let body: unknown = {};
    const files: { filename: string; content: string; bytes: Uint8Array; part: string }[] = [];
    for (const [name, value] of form.entries()) {
      if (name === "payload_json" && typeof value === "string") body = JSON.parse(value);
      else if (typeof value !== "string")
        files.push({
          filename: value.name,
          content: await value.text(),
          bytes: new Uint8Array(await value.arrayBuffer()),
          part: name,
        });
    }
    return { body, files };
  }
  return { body: JSON.parse(raw.toString("utf8")) as unknown, files: [] };
}
