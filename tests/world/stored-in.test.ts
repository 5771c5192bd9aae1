import { afterEach, describe, expect, it } from "vitest";
import { storedIn } from "../../src/world/outbox.js";
import { openTestStore, temporaryDatabaseUrl } from "./harness.js";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe("PostKey.isStored: a platform message the world stored as another post's is never taken for a new one", () => {
  it("answers yes for every stored part in its chat, and no for an unknown id or another chat", async () => {
    const opened = await openTestStore(temporaryDatabaseUrl());
    close = opened.close;
    const { store } = opened;
    const chatKey = "discord:g1:c1";
    await store.ensureChat(chatKey, "default", "discord");
    await store.recordOutbound({ chatKey, refKind: "message", refId: "m1", platformMessageIds: ["p1", "p2"] });
    const isStored = storedIn(store, chatKey);
    expect(await isStored("p1")).toBe(true);
    expect(await isStored("p2")).toBe(true);
    expect(await isStored("p3")).toBe(false);
    await store.ensureChat("discord:g1:c2", "default", "discord");
    expect(await storedIn(store, "discord:g1:c2")("p1")).toBe(false);
  });
});
