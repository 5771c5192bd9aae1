/**
 * What a channel can do, as data. The world reads these instead of checking platform names;
 * each adapter states its own. Behaviour that needs code (private replies, edits from stored
 * ids, attachments) is a small interface with a type guard besides this data.
 */
export interface ChannelCapabilities {
  /** Longest text one platform message holds (characters); longer texts are split by the adapter. */
  maxMessageLength: number;
  /** Posted messages can be edited (streamed answers, card outcomes). */
  canEdit: boolean;
  /** Replies can form threads that are their own chats (`ChatRef.thread`). */
  threads: boolean;
  /** Something can be shown to one person only (Slack and Discord ephemeral messages). */
  privateReplies: boolean;
  /** The platform shows a growing answer natively (drafts, streams), not only by edits. */
  nativeStreaming: boolean;
  /** Files can be attached (a card's whole arguments). */
  fileAttachments: boolean;
  /** Agents can post under their own name and picture (Slack persona, Discord webhook, own bot). */
  agentIdentities: boolean;
  /** Approval buttons are pressed by people the platform identifies (false: the local user decides). */
  identifiesClickers: boolean;
  /**
   * A chat names its world in `ChatRef.workspace` (the console and the web console pick a world
   * per chat); false: the platform's chats are bound to worlds by `channels.<platform>.chats`.
   */
  chatsNameTheirWorld: boolean;
}
