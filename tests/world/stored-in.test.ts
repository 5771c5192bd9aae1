import { afterEach, describe, expect, it } from "vitest";
import { storedIn } from "../../src/world/delivery/post-keys.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness, openTestStore, temporaryDatabaseUrl } from "./harness.js";

let close: (() => Promise<void>) | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
  await harness?.close();
  harness = undefined;
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

  it("a delivery tried again names its post with a key that knows the chat's earlier posts", async () => {
    const bob = new ScriptedProvider((request) => ({
      text: /say (\w+)$/.exec(ScriptedProvider.lastText(request))?.[1] ?? "?",
    }));
    harness = await createHarness({ agents: [{ name: "bob", provider: bob }], deliveryHoldMs: 20_000 });
    let refusals = 1;
    harness.channel.refusePost = (message) => message.text === "B" && refusals-- > 0;
    await harness.say("@bob say A");
    await harness.idle();
    await harness.say("@bob say B");
    await harness.idle();
    const posts = harness.channel.posted.flatMap((post) => (post.kind === "message" ? [post] : []));
    expect(posts.map((post) => post.text)).toEqual(["A", "B"]);
    const [first, second] = posts;
    expect(first?.postKey?.mayExist).toBe(false);
    // The second attempt may find a post of it: its key tells the answer "A" is another post's.
    expect(second?.postKey?.mayExist).toBe(true);
    expect(await second?.postKey?.isStored?.(first?.id ?? "")).toBe(true);
    expect(await second?.postKey?.isStored?.("never-posted")).toBe(false);
  });
});
