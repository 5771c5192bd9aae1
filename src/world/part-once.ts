import { type PartKey, type PostKey, partKeyOf } from "./delivery/post-key.js";

/**
 * One part of a post as an adapter posts it once: the delivery's `PartKey` under its old name
 * (docs/architecture.md, "Posting once"), kept until every channel is built on the primitives
 * (then channels get part keys from the world and never make them).
 */
export type PartOnce = PartKey;

/** Part `index` of the post `postKey` names, if it names one. */
export function partOnce(postKey: PostKey | undefined, index: number): PartOnce | undefined {
  return postKey === undefined ? undefined : partKeyOf(postKey, index);
}

export { earliestPostTime } from "./delivery/post-key.js";
