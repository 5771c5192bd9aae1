/**
 * What a channel can do, as data. The world (and the channel contract suite) reads these
 * instead of checking platform names; each adapter states its own. Keep only flags something
 * reads. Behaviour that needs code (private replies, edits from stored ids, streams) is a small
 * interface with a type guard besides this data.
 */
export interface ChannelCapabilities {
  /** Posted messages can be edited (streamed answers, card outcomes). */
  canEdit: boolean;
  /** Approval buttons are pressed by people the platform identifies (false: the local user decides). */
  identifiesClickers: boolean;
  /**
   * A chat names its world in `ChatRef.workspace` (the console and the web console pick a world
   * per chat); false: the platform's chats are bound to worlds by `channels.<platform>.chats`.
   */
  chatsNameTheirWorld: boolean;
}
