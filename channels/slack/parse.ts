import type {
  ApprovalClick,
  ApprovalInput,
  ChatRef,
  InboundAttachment,
  InboundCommand,
  InboundMessage,
} from "../../src/world/channel-adapter.js";
import { decodeApprovalValue, stopActionId } from "./action-value.js";
import { argumentsBlockId } from "./render.js";
import { resolveSlackText, type SlackNames } from "./mentions.js";
import {
  type SlackMessageEvent,
  slackBlockActionsSchema,
  slackEventEnvelopeSchema,
  slackMessageEventSchema,
} from "./payload-schema.js";

/** Where the service answers a message in a channel: in its thread (default) or the channel. */
export type ReplyIn = "thread" | "channel";

/** Who the app is and how it answers; what parsing needs besides the payload. */
export interface ParseContext extends SlackNames {
  botId: string;
  teamId: string;
  replyIn: ReplyIn;
  /** Agent view: a top-level direct message starts its own thread, as in a channel. */
  threadDirectMessages?: boolean;
  /** Where shared files are downloaded from (`files.slack.com`) and the bot token they need. */
  files?: { host: string; botToken: string };
}

/** A press of *Deny with reason…* or *Edit…*: the modal to open, for whom and which card. */
export interface ModalAsk {
  chat: ChatRef;
  approvalId: string;
  input: ApprovalInput;
  user: string;
  triggerId: string;
  /** The arguments as the card shows them (its first code block), for *Edit…*. */
  cardArguments: string;
}

/** The text of a card's arguments block (else its first code block), unescaped; `{}` when there is none. */
function cardArgumentsOf(blocks: readonly unknown[]): string {
  const named = blocks.filter((block) => (block as { block_id?: unknown }).block_id === argumentsBlockId);
  for (const block of [...named, ...blocks]) {
    const text = (block as { type?: unknown; text?: { text?: unknown } }).text?.text;
    if ((block as { type?: unknown }).type !== "section" || typeof text !== "string") continue;
    const fenced = /^```([\s\S]*)```$/.exec(text);
    if (!fenced) continue;
    return (fenced[1] ?? "")
      .replaceAll("`\u200b``", "```")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&");
  }
  return "{}";
}

/** What one event means for the world. */
export type ParsedEvent =
  | { kind: "message"; message: InboundMessage; eventId: string }
  | { kind: "ignored"; reason: string }
  | { kind: "invalid"; reason: string };

/** What one interactive payload means for the world. */
export type ParsedAction =
  | { kind: "click"; click: ApprovalClick }
  /** *Deny with reason…* or *Edit…*: a modal opens (channels/slack/input-modals.ts). */
  | { kind: "ask"; ask: ModalAsk }
  /** The Stop button on an answer being written: `/stop` for its agent. */
  | { kind: "command"; command: InboundCommand }
  | { kind: "bad-click"; reason: string; user: string; chat?: ChatRef }
  | { kind: "invalid"; reason: string };

/** Message subtypes that carry new text from a person; every other subtype starts nothing. */
const textSubtypes = new Set(["thread_broadcast", "file_share", "me_message"]);

function issues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "payload"}: ${issue.message}`).join("; ");
}

/**
 * The chat of a message. A reply in a thread belongs to that thread's chat. A top-level message
 * in a channel starts its own thread when answers go to threads (so the thread is the chat);
 * in a direct message (unless Agent view threads them), and with `replyIn: channel`, it belongs to the channel.
 */
function chatOf(
  event: Pick<SlackMessageEvent, "channel" | "ts" | "thread_ts" | "channel_type" | "team">,
  context: ParseContext,
): ChatRef {
  const chat: ChatRef = { platform: "slack", workspace: event.team ?? context.teamId, channel: event.channel };
  if (event.thread_ts !== undefined && event.thread_ts !== event.ts) chat.thread = event.thread_ts;
  else if (context.replyIn === "thread" && (event.channel_type !== "im" || context.threadDirectMessages === true)) {
    chat.thread = event.ts;
  }
  return chat;
}

/** The user ids whose names the adapter should know before {@link parseEvent}. */
export function userIdsToName(body: unknown): string[] {
  const envelope = slackEventEnvelopeSchema.safeParse(body);
  if (!envelope.success) return [];
  const event = slackMessageEventSchema.safeParse(envelope.data.event);
  if (!event.success) return [];
  // The sender first: a per-message cap on look-ups (UserNames) must not leave them unnamed.
  const ids = event.data.user ? [event.data.user] : [];
  for (const match of (event.data.text ?? "").matchAll(/<@([UW][A-Z0-9]+)/g)) ids.push(match[1] as string);
  return [...new Set(ids)];
}

/** An Events API body (`event_callback`) as an inbound message, or why it starts nothing. */
export function parseEvent(body: unknown, context: ParseContext): ParsedEvent {
  const envelope = slackEventEnvelopeSchema.safeParse(body);
  if (!envelope.success) return { kind: "invalid", reason: `not an event callback: ${issues(envelope.error)}` };
  const { event_id: eventId, event: rawEvent } = envelope.data;
  if (rawEvent.type !== "message" && rawEvent.type !== "app_mention") {
    return { kind: "ignored", reason: `event type ${rawEvent.type}` };
  }
  const parsed = slackMessageEventSchema.safeParse(rawEvent);
  if (!parsed.success) return { kind: "invalid", reason: `malformed ${rawEvent.type} event: ${issues(parsed.error)}` };
  const event = parsed.data;
  if (event.subtype !== undefined && event.subtype !== "bot_message" && !textSubtypes.has(event.subtype)) {
    return { kind: "ignored", reason: `message subtype ${event.subtype} is not new text` };
  }
  // The app's own posts (its bot user, agents' personas) come back as events: marked, not dropped.
  const ownEcho = event.bot_id === context.botId || event.user === context.botUserId;
  const isBot = event.bot_id !== undefined;
  const senderId = event.user ?? event.bot_id;
  if (senderId === undefined) return { kind: "ignored", reason: "message without a sender" };
  const rawText = event.text ?? "";
  const attachments = attachmentsOf(event, context);
  if (rawText.trim() === "" && attachments.length === 0) return { kind: "ignored", reason: "message without text" };
  const { text, mentions } = resolveSlackText(rawText, context);
  const displayName = context.userNames.get(senderId) ?? event.username ?? senderId;
  const message: InboundMessage = {
    chat: chatOf({ ...event, team: envelope.data.team_id ?? event.team }, context),
    platformMessageId: event.ts,
    sender: { id: senderId, displayName, isBot: isBot || ownEcho },
    text,
    mentions,
    ...(ownEcho ? { ownEcho: true } : {}),
    receivedAt: new Date(Math.round(Number(event.ts) * 1000)),
    raw: body,
    ...(attachments.length === 0 ? {} : { attachments }),
  };
  return { kind: "message", message, eventId };
}

/** A message's shared files, fetched from `url_private_download` with the bot token. */
function attachmentsOf(event: SlackMessageEvent, context: ParseContext): InboundAttachment[] {
  const access = context.files;
  if (access === undefined) return [];
  return (event.files ?? []).flatMap((file) => {
    const url = file.url_private_download ?? file.url_private;
    if (url === undefined) return [];
    return [
      {
        name: file.name ?? file.id,
        ...(file.size === undefined ? {} : { declaredSize: file.size }),
        host: access.host,
        locate: async () => ({ url, headers: { authorization: `Bearer ${access.botToken}` } }),
      },
    ];
  });
}

/** A `block_actions` payload as an approval click, or why it is not one. */
export function parseAction(body: unknown, context: Pick<ParseContext, "teamId" | "userNames">): ParsedAction {
  const parsed = slackBlockActionsSchema.safeParse(body);
  if (!parsed.success) return { kind: "invalid", reason: `malformed block_actions payload: ${issues(parsed.error)}` };
  const payload = parsed.data;
  const action = payload.actions[0];
  const channel = payload.channel?.id ?? payload.container?.channel_id;
  const threadTs = payload.container?.thread_ts ?? payload.message?.thread_ts;
  const chat: ChatRef | undefined =
    channel === undefined
      ? undefined
      : {
          platform: "slack",
          workspace: payload.team?.id ?? context.teamId,
          channel,
          ...(threadTs === undefined ? {} : { thread: threadTs }),
        };
  const user = payload.user.id;
  if (action?.action_id === stopActionId && chat) {
    const name = context.userNames.get(user) ?? payload.user.name ?? payload.user.username ?? user;
    const agent = action.value ?? "";
    return {
      kind: "command",
      command: {
        chat,
        name: "stop",
        args: agent === "" ? [] : [agent],
        sender: { id: user, displayName: name, isBot: false },
        ...(action.action_ts === undefined ? {} : { platformEventId: `${user}:${action.action_ts}` }),
        raw: body,
      },
    };
  }
  const decoded = action?.value === undefined ? undefined : decodeApprovalValue(action.value);
  if (!decoded || !chat) {
    return {
      kind: "bad-click",
      reason: `button value not ours: ${action?.value ?? "(none)"}`,
      user,
      ...(chat ? { chat } : {}),
    };
  }
  const name = context.userNames.get(user) ?? payload.user.name ?? payload.user.username ?? user;
  if (decoded.choice === "reason" || decoded.choice === "edit") {
    if (payload.trigger_id === undefined)
      return { kind: "bad-click", reason: "a modal button without a trigger", user, chat };
    return {
      kind: "ask",
      ask: {
        chat,
        approvalId: decoded.approvalId,
        input: decoded.choice,
        user,
        triggerId: payload.trigger_id,
        cardArguments: cardArgumentsOf(payload.message?.blocks ?? []),
      },
    };
  }
  return {
    kind: "click",
    click: {
      chat,
      approvalId: decoded.approvalId,
      choice: decoded.choice,
      user: {
        id: user,
        displayName: name,
        isBot: false,
        ...(payload.user.username ? { handle: payload.user.username } : {}),
      },
      platformEventId: payload.trigger_id ?? `${user}:${action?.action_ts ?? payload.message?.ts ?? ""}`,
      raw: body,
    },
  };
}
