/** Who wrote a message in a world chat: a person, another platform's bot (not ours), an agent, the world. */
export type AuthorKind = "human" | "bot" | "agent" | "system";

export interface Author {
  kind: AuthorKind;
  /** Platform user id for humans, the agent name for agents, `roundtable` for the world. */
  id: string;
  name: string;
  /** The person's platform handle (Telegram @username, without `@`), when it has one. */
  handle?: string;
  /**
   * An agent's configured identity in chats (`agents[].displayName` when it differs from the
   * name, `agents[].avatarUrl`). Filled when the world hands a message to a channel; not stored.
   */
  displayName?: string;
  avatarUrl?: string;
}

/** A message as the world stores it. Stored history is never rewritten. */
export interface WorldMessage {
  id: string;
  chatKey: string;
  author: Author;
  /** Plain text; agents' text is Markdown the channel renders. */
  text: string;
  turnId?: string;
  platformMessageId?: string;
  createdAt: Date;
  /** How many files the message has (absent: none; they are read with `Store.messageFiles`). */
  fileCount?: number;
}

/** The name under which the world itself speaks. */
export const worldAuthor: Author = { kind: "system", id: "roundtable", name: "roundtable" };
