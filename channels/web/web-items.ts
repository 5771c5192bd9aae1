import type { ApprovalChoice, AuthorKind } from "../../src/world/channel-adapter.js";

/** Who wrote an item on the page: the agent's display name and avatar when it has them. */
export interface WebAuthor {
  kind: AuthorKind;
  name: string;
  displayName: string;
  avatarUrl?: string;
}

/** A stored file of a message as the page links it; an image (`image`) is shown inline too. */
export interface WebFileLink {
  name: string;
  url: string;
  image: boolean;
}

/** An approval card as the page shows it; `state` other than `pending` means decided. */
export interface WebCard {
  approvalId: string;
  shortId: string;
  agent: string;
  /** The agent's `displayName`, when it has one. */
  agentDisplayName?: string;
  tool: string;
  /** The whole arguments JSON: an approver sees every byte (invisible characters as `\u` escapes). */
  argumentsJson: string;
  /** Set when the arguments hold invisible characters: the line saying so. */
  invisibleNotice?: string;
  /** Set when the arguments are longer than the page's box: their length, and that the box scrolls. */
  lengthNotice?: string;
  reason: string;
  /** The model's reasoning of the step, shown above the arguments (as text). */
  reasoning?: string;
  /** A quorum's progress, an escalation (`channels/kit/card-extras.ts`). */
  status?: string[];
  requestedFor: string;
  expiresAt: string;
  state: "pending" | "approved" | "denied" | "expired" | "skipped";
  choice?: ApprovalChoice;
  decidedBy?: string;
  /** Why it was closed without a decision (`Ana wrote to alice again`, `stopped by Ana`). */
  note?: string;
}

/** One thing on the chat page, in the order it happened. `id` is stable: a later item with the same id replaces it. */
export type WebItem =
  | {
      kind: "message";
      id: string;
      author: WebAuthor;
      text: string;
      at: string;
      /** Shown only to one person's pages (a refusal, a notice), never stored as part of the chat. */
      private?: boolean;
      /** The message's files (a tool's image, an upload), each a link to `GET /chat/file`. */
      files?: WebFileLink[];
    }
  | { kind: "draft"; id: string; author: WebAuthor; text: string }
  | { kind: "card"; id: string; card: WebCard; at: string };

/** What the page receives over Server-Sent Events. */
export type WebEvent =
  | { type: "snapshot"; items: WebItem[] }
  | { type: "item"; item: WebItem }
  | { type: "removed"; id: string }
  /** An agent's status line while it works ("alice is thinking…"); "" clears it. */
  | { type: "working"; agent: string; text: string };

/**
 * Where the chat page's history comes from (the store, wired by the app): the chat's stored
 * messages and approval cards, oldest first.
 */
export interface WebHistorySource {
  history(chatKey: string): Promise<WebItem[]>;
}
