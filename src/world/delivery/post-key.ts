/**
 * A post's identity across runs of the step that makes it (docs/architecture.md, "Posting
 * once"): one key per post, named by the world and handed to channels finished. A platform
 * that can tell a post it already took shows it once: Discord gets a nonce made from a part's
 * key, Slack stores it as the message's metadata and is asked for it.
 */
export interface PostKey {
  /** The world's name of the post (a message id, `card:<approval>`, `outcome:<approval>`). */
  id: string;
  /**
   * A run before this one may have posted it and died (or lost the answer) before its id was
   * stored: the step's job is on a later attempt, or the call is being tried again. Only then
   * is the platform asked for it before posting; a first attempt costs no extra platform call.
   */
  mayExist: boolean;
  /** No post of it is older than this: bounds a look-up. */
  since: Date;
  /**
   * Whether a platform message is stored as (a part of) a post the world already knows: such a
   * message is never this post, however alike it looks. Asked only while looking.
   */
  isStored?: (platformMessageId: string) => Promise<boolean>;
}

/** One part of a post (long texts are split; each part is its own platform message). */
export interface PartKey {
  /** The post's key and the part's index (`PostKey.id` + `:<index>`). */
  key: string;
  mayExist: boolean;
  since: Date;
  isStored?: (platformMessageId: string) => Promise<boolean>;
}

/** Part `index` of the post `postKey` names. */
export function partKeyOf(postKey: PostKey, index: number): PartKey {
  const { mayExist, since, isStored } = postKey;
  return { key: `${postKey.id}:${index}`, mayExist, since, ...(isStored ? { isStored } : {}) };
}

/**
 * File `index` of the post `postKey` names (a message's files, posted after its text parts):
 * `<id>:file:<index>`, the same on every run whatever the text's parts.
 */
export function fileKeyOf(postKey: PostKey, index: number): PartKey {
  return partKeyOf({ ...postKey, id: `${postKey.id}:file` }, index);
}

/** The platform's clock and the service's may differ; a look-up reaches this much further back. */
const lookupClockSkewMs = 10_000;

/** The earliest time (ms since 1970, by the platform's clock) a post of this part can carry. */
export function earliestPostTime(part: Pick<PartKey, "since">): number {
  return Math.max(0, part.since.getTime() - lookupClockSkewMs);
}
