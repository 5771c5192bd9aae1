import { type ChatRef, chatKey } from "../chat-ref.js";
import type { Store } from "../store.js";
import type { PostKey } from "./post-key.js";

/** Whether a platform message in chat `key` is stored as where some post landed (`PostKey.isStored`). */
export function storedIn(
  store: Pick<Store, "findOutboundByPlatformId">,
  key: string,
): (platformMessageId: string) => Promise<boolean> {
  return async (platformMessageId) => (await store.findOutboundByPlatformId(key, platformMessageId)) !== undefined;
}

/**
 * What a post is, and so what bounds a look-up for an earlier run's post of it: an agent's
 * answer is bounded by its turn's start (its stream may have begun it then: the stream and the
 * delivery use the same bound), a card, an outcome or a world message by its event's time.
 */
export type PostName =
  | { kind: "answer"; messageId: string; turnStartedAt: Date }
  | { kind: "message"; messageId: string; at: Date }
  | { kind: "card"; approvalId: string; at: Date }
  | { kind: "outcome"; approvalId: string; at: Date };

/**
 * The one builder of post keys (docs/architecture.md, "Posting once"): the post's id, whether
 * an earlier run may have posted it (`mayExist`: the step's job or the call is being tried
 * again), the look-up bound, and `isStored` for the chat. Channels never build keys: they get
 * a part's key (`partKeyOf`) in `sendPart` and `findPosted`.
 */
export function postKeyFor(
  store: Pick<Store, "findOutboundByPlatformId">,
  chat: ChatRef,
  post: PostName,
  mayExist: boolean,
): PostKey {
  const isStored = storedIn(store, chatKey(chat));
  switch (post.kind) {
    case "answer":
      return { id: post.messageId, mayExist, since: post.turnStartedAt, isStored };
    case "message":
      return { id: post.messageId, mayExist, since: post.at, isStored };
    case "card":
      return { id: `card:${post.approvalId}`, mayExist, since: post.at, isStored };
    case "outcome":
      return { id: `outcome:${post.approvalId}`, mayExist, since: post.at, isStored };
  }
}
