import { randomUUID } from "node:crypto";
import { silentLogger } from "../src/log/logger.js";
import { openStore } from "../src/storage/open-store.js";
import { chatKey } from "../src/world/chat-ref.js";

/**
 * Stores `count` messages of earlier conversation in a Telegram private chat (a person's
 * question, then alice's answer, alternating), straight through the Store, before the service
 * starts: what the service then reads is a chat with that much history.
 */
export async function seedHistory(databaseUrl: string, chats: { chatId: number; count: number }[]): Promise<void> {
  const opened = await openStore({ databaseUrl, logger: silentLogger() });
  try {
    for (const { chatId, count } of chats) {
      const key = chatKey({ platform: "telegram", channel: String(chatId) });
      await opened.store.ensureChat(key, "main", "telegram");
      const start = Date.now() - count * 60_000;
      for (let index = 0; index < count; index++) {
        const human = index % 2 === 0;
        await opened.store.addMessage({
          id: randomUUID(),
          chatKey: key,
          author: human
            ? { kind: "human", id: String(100_000 + chatId), name: `person${chatId}` }
            : { kind: "agent", id: "alice", name: "alice" },
          text: human
            ? `earlier question number ${index} about the release plan`
            : `earlier answer number ${index}: fine`,
          ...(human ? {} : { provider: "openai", model: "gpt-4.1" }),
          createdAt: new Date(start + index * 60_000),
        });
      }
    }
  } finally {
    await opened.close();
  }
}
