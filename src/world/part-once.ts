import { type PostKey, partKey } from "./outbound-text.js";

/**
 * One part of a post as an adapter posts it once (docs/architecture.md, "The window that
 * remains"): its key, the same on every run of the step that makes it, and what bounds a
 * look-up for an earlier run's post of it. The platform-free half of Slack's and Discord's
 * post-once code.
 */
export interface PartOnce {
  /** The post's key and the part's index (`PostKey.id` + `:<index>`). */
  key: string;
  /** A run before this one may have posted it: look before posting. */
  mayExist: boolean;
  /** No post of it is older than this (`PostKey.since`). */
  since: Date;
  /** Whether a message is already stored as another post's (`PostKey.isStored`): never this one. */
  isStored?: (platformMessageId: string) => Promise<boolean>;
}

/** Part `index` of the post `postKey` names, if it names one. */
export function partOnce(postKey: PostKey | undefined, index: number): PartOnce | undefined {
  if (!postKey) return undefined;
  const { mayExist, since, isStored } = postKey;
  return { key: partKey(postKey, index), mayExist, since, ...(isStored ? { isStored } : {}) };
}

/** The platform's clock and the service's may differ; a look-up reaches this much further back. */
const lookupClockSkewMs = 10_000;

/** The earliest time (ms since 1970, by the platform's clock) a post of `part` can carry. */
export function earliestPostTime(part: Pick<PartOnce, "since">): number {
  return Math.max(0, part.since.getTime() - lookupClockSkewMs);
}
