import type { ChatRef } from "./chat-ref.js";

/** Who sent something, as the platform identifies them. Ids are strings everywhere. */
export interface Sender {
  id: string;
  displayName: string;
  /** The platform handle (Telegram @username, without `@`), when the person has one. */
  handle?: string;
  isBot: boolean;
  /** Role names or ids the platform reports (Discord roles, `admin` for chat admins). */
  roles?: string[];
}

/**
 * A message a channel hands to the world. `text` is plain text in which platform mention
 * syntax has been turned into `@name` of agents and people.
 */
export interface InboundMessage {
  chat: ChatRef;
  /** The platform's own id of this message: the dedupe key, with the chat. */
  platformMessageId: string;
  sender: Sender;
  text: string;
  /** Names (`alice`, not `@alice`) the platform marked as mentions, in text order. */
  mentions: string[];
  /** The platform id of the message this one replies to. */
  replyTo?: string;
  /**
   * Set by the adapter when this is the service's own post coming back (its bot user, a
   * webhook it owns, an agent's persona or own bot). The world neither stores nor routes it.
   */
  ownEcho?: boolean;
  /**
   * For a message in a thread (`chat.thread` set): the thread's first message, so that the
   * first turn in the thread sees what it is about. The world stores it once, unrouted.
   */
  threadRoot?: ThreadRoot;
  receivedAt: Date;
  /** The platform payload, stored as it came. */
  raw: unknown;
  /** Files and images that came with the message; fetched once, at ingress. */
  attachments?: InboundAttachment[];
  /**
   * The names this bot goes by on the platform (Telegram: its username), so that `/stop@name`
   * is a command for us and `/stop@otherbot` is not.
   */
  botNames?: string[];
}

/** Where a file of an inbound message can be downloaded from, as the platform says. */
export interface FileLocation {
  url: string;
  /** The bot's credentials where the platform's file host needs them. */
  headers?: Record<string, string>;
}

/**
 * A file or image of an inbound message, as the channel knows it before download. The fetcher
 * takes it only from `host` (the platform's own file host, as configured) and follows a
 * redirect only to that host.
 */
export interface DownloadAttachment {
  /** The platform's file name, or one made from its id (a photo has none). */
  name: string;
  /** The size the platform announced, when it did (a bigger one than the cap is not fetched). */
  declaredSize?: number;
  /** The platform's file host (`host[:port]`) the download must stay on. */
  host: string;
  /** Where to download it (Telegram asks `getFile` first, so this may call the platform). */
  locate(): Promise<FileLocation>;
}

/** A file whose bytes came with the message (a web upload): nothing to fetch, the same caps. */
export interface UploadedAttachment {
  name: string;
  bytes: Uint8Array;
}

export type InboundAttachment = DownloadAttachment | UploadedAttachment;

/** The message a thread hangs off, as the platform shows it. */
export interface ThreadRoot {
  platformMessageId: string;
  sender: Sender;
  text: string;
  /** The root is one of the service's own posts (an agent's answer the thread replies to). */
  ownPost?: boolean;
}

/**
 * What a person can choose on an approval card. `edit`: approve once, with the arguments the
 * person edited (`approvals.edit`, docs/approvals.md "Edit, then approve"). `always`: approve once and store a rule that
 * allows the same call from now on (`approvals.allowAlways`, docs/approvals.md "Always allow").
 */
export type ApprovalChoice = "once" | "session" | "deny" | "always" | "edit";

/** Every choice a press may carry (what a channel accepts back from its buttons). */
export const approvalChoices: readonly ApprovalChoice[] = ["once", "session", "deny", "always", "edit"];

/**
 * A card's buttons that ask for text before they decide (docs/approvals.md): *Deny with
 * reason…* (then a `deny` with `reason`) and *Edit…* (then an `edit` with the edited arguments).
 */
export type ApprovalInput = "reason" | "edit";

/** The choices of an ordinary card (`always` is added where the world offers it). */
export const cardChoices: readonly ApprovalChoice[] = ["once", "session", "deny"];

/** A button press on an approval card. Everything but the id and choice comes from storage. */
export interface ApprovalClick {
  chat: ChatRef;
  /** The opaque approval id, or the short id shown in the chat (console). */
  approvalId: string;
  choice: ApprovalChoice;
  user: Sender;
  /** The platform's id of this press, when it has one (dedupe of duplicate delivery). */
  platformEventId?: string;
  reason?: string;
  /** For `edit`: the arguments as the person edited them (JSON text, checked by the world). */
  editedArgumentsJson?: string;
  raw: unknown;
}

/** The world's answer to an inbound message. */
export type IngressResult =
  | { status: "accepted"; messageId: string }
  | { status: "duplicate" }
  | { status: "ignored"; reason: string }
  | { status: "unbound"; reason: string };

/** The world's answer to a click: the channel shows `text` privately to the clicker. */
export type ClickResult =
  | { status: "decided"; text: string }
  | { status: "not-allowed"; text: string }
  | { status: "already-decided"; text: string }
  | { status: "expired"; text: string }
  | { status: "unknown"; text: string }
  /** An edit that does not fit the tool's input schema: nothing changed. */
  | { status: "invalid"; text: string };

/**
 * A chat command that arrived as a platform structure rather than a typed message: a Stop
 * button on a streaming answer, Slack's `/roundtable <command>`, a Discord application command.
 */
export interface InboundCommand {
  chat: ChatRef;
  /** The command's name without the slash (`stop`, `agents`, …). */
  name: string;
  args: string[];
  sender: Sender;
  /** The platform's id of this press or call, when it has one (dedupe of duplicate delivery). */
  platformEventId?: string;
  /**
   * The command cannot name a thread (Slack offers slash commands only at channel level): it
   * concerns the channel's own chat and every thread chat in it.
   */
  wholeChannel?: boolean;
  raw: unknown;
}

/** The world's answer to a command; the channel shows `text` privately to the sender. */
export type CommandResult =
  | { status: "done"; text: string }
  | { status: "refused"; text: string }
  | { status: "unknown"; text: string };

/** What a channel adapter calls when something arrives. Implemented by the world's ingress. */
export interface InboundSink {
  message(message: InboundMessage): Promise<IngressResult>;
  click(click: ApprovalClick): Promise<ClickResult>;
  command(command: InboundCommand): Promise<CommandResult>;
}
