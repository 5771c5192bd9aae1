import type { WebFileSource } from "../../channels/web/file-route.js";
import { parseChatKey } from "../world/chat-ref.js";
import type { Store } from "../world/store.js";

/** The web console's files, read from the store: a message's file with bytes, by its name. */
export function storedWebFiles(store: Pick<Store, "getMessage" | "messageFiles">): WebFileSource {
  return {
    async file(messageId, name) {
      const message = await store.getMessage(messageId);
      if (message === undefined || (message.fileCount ?? 0) === 0) return undefined;
      const file = (await store.messageFiles(messageId)).find((each) => each.name === name);
      if (file?.bytes === undefined) return undefined;
      return { chat: parseChatKey(message.chatKey), name: file.name, mediaType: file.mediaType, bytes: file.bytes };
    },
  };
}
