import type {
  ApprovalClick,
  ChatRef,
  InboundCommand,
  InboundMessage,
  Sender,
} from "../../src/world/channel-adapter.js";
import { decodeApprovalCustomId, decodeModalCustomId, decodeStopCustomId } from "./custom-id.js";
import { type ModalAsk, modalFieldId } from "./input-modal.js";
import {
  type DiscordInteraction,
  type DiscordMessage,
  type DiscordUser,
  discordInteractionSchema,
  discordMessageSchema,
} from "./gateway-schema.js";
import { type MentionDirectory, resolveMentions } from "./mentions.js";

/** Whose posts are the service's own: they come back on the gateway and start nothing. */
export interface OwnIdentities {
  /** The main bot and agents' own bots. */
  botUserIds: ReadonlySet<string>;
  /** The application (interaction follow-ups and app-owned webhooks carry it). */
  applicationId: string;
  /** Is this one of the channel webhooks the app owns? */
  isOwnWebhook(webhookId: string): boolean;
}

/** Discord's own CDN, where attachments live. */
export const discordCdnHost = "cdn.discordapp.com";

/** Attachments come from Discord's CDN, or from the configured API's host (an emulator). */
export function attachmentHostFor(apiUrl: string | undefined): string {
  return apiUrl === undefined ? discordCdnHost : new URL(apiUrl).host;
}

/** What one MESSAGE_CREATE means for the world. */
export type ParsedMessage =
  | { kind: "message"; message: InboundMessage }
  /** One of our own posts with nothing to hand in (no text: a card's edit, an attachment). */
  | { kind: "own"; reason: string }
  | { kind: "ignored"; reason: string }
  | { kind: "invalid"; reason: string };

/** What one INTERACTION_CREATE means. */
export type ParsedInteraction =
  | { kind: "click"; click: ApprovalClick; interaction: { id: string; token: string } }
  /** *Deny with reason…* or *Edit…*: answered with a modal (channels/discord/input-modal.ts). */
  | { kind: "ask"; ask: ModalAsk; interaction: { id: string; token: string } }
  /** An application command (`/stop`, `/agents`, …). */
  | { kind: "command"; command: InboundCommand; interaction: { id: string; token: string } }
  /** A button the adapter cannot read (not ours, stale, malformed): answer privately, log. */
  | { kind: "bad-click"; interaction: { id: string; token: string }; reason: string }
  | { kind: "ignored"; reason: string }
  | { kind: "invalid"; reason: string };

/** Discord's "Administrator" permission bit: such members count as the chat's admins. */
const administrator = 1n << 3n;

/** Message types that are people writing: 0 default, 19 reply. */
const conversationTypes = new Set([0, 19]);

function issues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`)
    .join("; ");
}

function displayNameOf(user: DiscordUser, nick: string | null | undefined): string {
  return nick ?? user.global_name ?? user.username;
}

/**
 * What a member's roles match in `role:` entries: each role's id, its name qualified by its
 * guild (`<guild id>/<name>`) and its bare name. A bare name that looks qualified is left out,
 * so that a role named `<some guild id>/Ops` cannot pass for that guild's Ops. (The world
 * counts roles only in chats bound by id, so a bare name matches only in such a chat's guild.)
 */
export function roleEntriesOf(
  guildId: string | undefined,
  roleIds: readonly string[],
  directory: Pick<MentionDirectory, "roleName">,
): string[] {
  return roleIds.flatMap((id) => {
    const name = directory.roleName(guildId, id);
    if (name === undefined) return [id];
    const qualified = guildId === undefined ? [] : [`${guildId}/${name}`];
    return /^\d+\//.test(name) ? [...qualified, id] : [name, ...qualified, id];
  });
}

function rolesOf(
  guildId: string | undefined,
  roleIds: readonly string[],
  permissions: string | undefined,
  directory: MentionDirectory,
): string[] {
  const names = roleEntriesOf(guildId, roleIds, directory);
  const administratorByPermissions =
    permissions !== undefined && /^\d+$/.test(permissions) && (BigInt(permissions) & administrator) !== 0n;
  if (administratorByPermissions || roleIds.some((id) => directory.roleIsAdministrator(guildId, id))) {
    names.push("admin");
  }
  return names;
}

/** Is this post one of the service's own (the bot, an agent's bot, our webhook)? */
function ownPostReason(message: DiscordMessage, own: OwnIdentities): string | undefined {
  if (message.webhook_id !== undefined) {
    if (own.isOwnWebhook(message.webhook_id)) return "our webhook's post";
    if (message.application_id === own.applicationId) return "our application's webhook post";
    return undefined;
  }
  if (own.botUserIds.has(message.author.id)) return "our bot's post";
  return undefined;
}

/**
 * A MESSAGE_CREATE as world input, in the chat `chat` (the adapter resolves threads to their
 * parent channel first). Never throws.
 */
export function parseMessage(
  raw: unknown,
  chat: ChatRef,
  directory: MentionDirectory,
  own: OwnIdentities,
  /** The CDN host attachments are downloaded from (`cdn.discordapp.com`). */
  attachmentHost = discordCdnHost,
): ParsedMessage {
  const parsed = discordMessageSchema.safeParse(raw);
  if (!parsed.success) return { kind: "invalid", reason: issues(parsed.error) };
  const message = parsed.data;
  const ownReason = ownPostReason(message, own);
  if (ownReason !== undefined && message.content.trim() === "") return { kind: "own", reason: ownReason };
  if (!conversationTypes.has(message.type)) return { kind: "ignored", reason: `system message type ${message.type}` };
  if (message.content.trim() === "" && message.attachments.length === 0) {
    return { kind: "ignored", reason: "message without text (is the message content intent enabled?)" };
  }
  const { text, mentions } = resolveMentions(message, directory);
  const sender: Sender = {
    id: message.author.id,
    displayName: directory.agentBotsById.get(message.author.id) ?? displayNameOf(message.author, message.member?.nick),
    handle: message.author.username,
    isBot: message.author.bot === true || message.webhook_id !== undefined,
  };
  const roles = rolesOf(message.guild_id, message.member?.roles ?? [], undefined, directory);
  if (roles.length > 0) sender.roles = roles;
  const inbound: InboundMessage = {
    chat,
    platformMessageId: message.id,
    sender,
    text,
    mentions,
    receivedAt: new Date(message.timestamp),
    raw,
  };
  if (message.attachments.length > 0 && ownReason === undefined) {
    inbound.attachments = message.attachments.map((attachment) => ({
      name: attachment.filename,
      ...(attachment.size === undefined ? {} : { declaredSize: attachment.size }),
      host: attachmentHost,
      // Discord's attachment URLs are signed: they need no token.
      locate: async () => ({ url: attachment.url }),
    }));
  }
  // Our own post coming back: handed in marked, so the world knows it and starts nothing.
  if (ownReason !== undefined) inbound.ownEcho = true;
  const replyTo = message.type === 19 ? message.message_reference?.message_id : undefined;
  if (replyTo !== undefined) inbound.replyTo = replyTo;
  return { kind: "message", message: inbound };
}

/** The ids of a gateway payload before validation (to find its chat, and for log lines). */
export function channelIdOf(raw: unknown): { id?: string; channelId?: string; guildId?: string } {
  if (typeof raw !== "object" || raw === null) return {};
  const record = raw as { id?: unknown; channel_id?: unknown; guild_id?: unknown };
  return {
    ...(typeof record.id === "string" ? { id: record.id } : {}),
    ...(typeof record.channel_id === "string" ? { channelId: record.channel_id } : {}),
    ...(typeof record.guild_id === "string" ? { guildId: record.guild_id } : {}),
  };
}

function interactionRef(raw: unknown): { id: string; token: string } | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const { id, token } = raw as { id?: unknown; token?: unknown };
  return typeof id === "string" && typeof token === "string" ? { id, token } : undefined;
}

/** An INTERACTION_CREATE as an approval click or a chat command, in the chat `chat`. Never throws. */
export function parseInteraction(raw: unknown, chat: ChatRef, directory: MentionDirectory): ParsedInteraction {
  const parsed = discordInteractionSchema.safeParse(raw);
  if (!parsed.success) {
    const ref = interactionRef(raw);
    const reason = issues(parsed.error);
    return ref ? { kind: "bad-click", interaction: ref, reason } : { kind: "invalid", reason };
  }
  const interaction: DiscordInteraction = parsed.data;
  const ref = { id: interaction.id, token: interaction.token };
  // 2 is an application command, 3 a message component (a button press), 5 a modal's
  // submission; the rest are not ours.
  if (interaction.type !== 2 && interaction.type !== 3 && interaction.type !== 5) {
    return { kind: "ignored", reason: `interaction type ${interaction.type}` };
  }
  const user = interaction.member?.user ?? interaction.user;
  if (!user) return { kind: "bad-click", interaction: ref, reason: "interaction without a user" };
  const sender: Sender = {
    id: user.id,
    displayName: displayNameOf(user, interaction.member?.nick),
    handle: user.username,
    isBot: user.bot === true,
  };
  const roles = rolesOf(
    interaction.guild_id,
    interaction.member?.roles ?? [],
    interaction.member?.permissions,
    directory,
  );
  if (roles.length > 0) sender.roles = roles;
  if (interaction.type === 2) {
    const name = interaction.data?.name;
    if (name === undefined) return { kind: "bad-click", interaction: ref, reason: "command without a name" };
    // `/rules revoke:<id>` is the typed `/rules revoke <id>`: a named option keeps its name.
    const args = (interaction.data?.options ?? []).flatMap((option) =>
      option.name === "revoke" ? ["revoke", String(option.value ?? "")] : [String(option.value ?? "")],
    );
    return {
      kind: "command",
      command: { chat, name, args, sender, platformEventId: interaction.id, raw },
      interaction: ref,
    };
  }
  if (interaction.type === 5) return modalSubmission(interaction, chat, sender, raw);
  const stop = decodeStopCustomId(interaction.data?.custom_id ?? "");
  if (stop) {
    const args = stop.agent === "" ? [] : [stop.agent];
    return {
      kind: "command",
      command: { chat, name: "stop", args, sender, platformEventId: interaction.id, raw },
      interaction: ref,
    };
  }
  const decoded = decodeApprovalCustomId(interaction.data?.custom_id ?? "");
  if (!decoded) return { kind: "bad-click", interaction: ref, reason: "not an approval button" };
  if (decoded.choice === "reason" || decoded.choice === "edit") {
    const ask = {
      approvalId: decoded.approvalId,
      input: decoded.choice,
      cardArguments: cardArgumentsOf(interaction.message?.content ?? ""),
    };
    return { kind: "ask", ask, interaction: ref };
  }
  return {
    kind: "click",
    click: {
      chat,
      approvalId: decoded.approvalId,
      choice: decoded.choice,
      user: sender,
      platformEventId: interaction.id,
      raw,
    },
    interaction: ref,
  };
}

/** A reason or edit modal's submission as the decision it carries. */
function modalSubmission(
  interaction: DiscordInteraction,
  chat: ChatRef,
  sender: Sender,
  raw: unknown,
): ParsedInteraction {
  const ref = { id: interaction.id, token: interaction.token };
  const modal = decodeModalCustomId(interaction.data?.custom_id ?? "");
  if (!modal) return { kind: "bad-click", interaction: ref, reason: "not our modal" };
  const field = (interaction.data?.components ?? [])
    .flatMap((row) => row.components ?? [])
    .find((each) => each.custom_id === modalFieldId);
  const text = field?.value ?? "";
  return {
    kind: "click",
    click: {
      chat,
      approvalId: modal.approvalId,
      choice: modal.input === "reason" ? "deny" : "edit",
      user: sender,
      platformEventId: interaction.id,
      ...(modal.input === "reason" ? { reason: text } : { editedArgumentsJson: text }),
      raw,
    },
    interaction: ref,
  };
}

/** The arguments as a card shows them: its first JSON code block, fences undone; `{}` without one. */
function cardArgumentsOf(content: string): string {
  const fenced = /```json\n([\s\S]*?)\n```/.exec(content);
  return fenced ? (fenced[1] ?? "").replaceAll("`\u200d``", "```") : "{}";
}
