import { expect } from "vitest";
import type { MessageEvent } from "../../src/world/policy/event-policy.js";
import { openTestStore } from "../world/harness.js";

/** The hooks' part of the Store on a database: first outcome wins, its effects with it, and only its. */
export async function checkHookOutcomeStore(databaseUrl: string): Promise<void> {
  const { store, close } = await openTestStore(databaseUrl);
  try {
    await store.ensureChat("console:main:ana:", "main", "console");
    await store.addMessage({
      id: "m1",
      chatKey: "console:main:ana:",
      author: { kind: "human", id: "ana", name: "ana" },
      text: "mail jo@example.com",
    });
    const event: MessageEvent = {
      type: "message",
      createdBy: "user",
      world: "main",
      chat: { platform: "console", id: "ana" },
      message: { id: "m1", senderName: "ana", senderId: "ana", text: "mail jo@example.com", files: [], addressed: [] },
    };
    const replaced = {
      outcome: "replaced" as const,
      event: { ...event, message: { ...event.message, text: "mail [email]" } },
    };
    const first = await store.recordHookOutcome(
      {
        key: "message:m1",
        chatKey: "console:main:ana:",
        kind: "message",
        outcome: "replaced",
        event,
        decision: replaced,
      },
      { messageText: { id: "m1", text: "mail [email]" } },
    );
    expect(first.outcome).toBe("replaced");
    expect(first.createdAt).toBeInstanceOf(Date);
    expect((await store.getMessage("m1"))?.text).toBe("mail [email]");
    // A second decision for the same event (another process, a re-run) changes nothing.
    const other = { outcome: "replaced" as const, event: { ...event, message: { ...event.message, text: "other" } } };
    const second = await store.recordHookOutcome(
      { key: "message:m1", chatKey: "console:main:ana:", kind: "message", outcome: "replaced", event, decision: other },
      { messageText: { id: "m1", text: "other" } },
    );
    expect(second.decision).toEqual(replaced);
    expect((await store.getMessage("m1"))?.text).toBe("mail [email]");
    expect((await store.getHookOutcome("message:m1"))?.event).toEqual(event);
    expect(await store.getHookOutcome("message:none")).toBeUndefined();
  } finally {
    await close();
  }
}
