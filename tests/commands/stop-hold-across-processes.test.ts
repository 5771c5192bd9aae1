import { afterEach, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { SharedPlatform, SharedPlatformChannel } from "../fakes/shared-platform.js";
import { SlowProvider } from "../fakes/slow-provider.js";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { createHarness, type Harness } from "../world/harness.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describePostgres("/stop while streaming, the answer delivered by another process (PostgreSQL)", (serverUrl) => {
  // The stopped answer used to be published without holding its stream: the other process,
  // finding no recorded draft while the stream's first post was still on its way, posted the
  // answer anew beside it (an answer shown twice).
  it("holds the stream before publishing: the other process edits the stream's post, the answer shows once", async () => {
    const database = await createPostgresDatabase(serverUrl());
    cleanups.push(() => database.drop());
    const platform = new SharedPlatform();
    const harnessOf = (provider: SlowProvider | ScriptedProvider) =>
      createHarness({
        databaseUrl: database.url,
        platform: "telegram",
        agents: [{ name: "alice", provider }],
        world: { defaultAgent: "alice" },
        channels: [new SharedPlatformChannel(platform, "telegram", "alice")],
      });
    const alice = new SlowProvider();
    const running: Harness = await harnessOf(alice);
    cleanups.push(() => running.close());
    const firstPost = platform.holdNextPost();
    await running.say("write a long essay", { user: "ana" });
    await alice.streaming;
    // The stream's first post is on the platform; its id is not back (nor recorded) yet.
    await firstPost.reached;
    // This process takes no further job: the answer's delivery runs in the other one.
    const queueStopped = running.queue.stop();
    const other: Harness = await harnessOf(new ScriptedProvider([]));
    cleanups.push(() => other.close());

    expect(await other.say("/stop", { user: "ana" })).toEqual({ status: "ignored", reason: "chat command /stop" });
    await running.waitFor(() => alice.endings.length > 0, 5_000);
    // Give a delivery published too early the time to post (a delivery that waits for the hold
    // posts nothing here); then the platform answers the stream's post.
    await other.waitFor(() => platform.messages.length > 1, 2_000).catch(() => undefined);
    firstPost.release();
    const [turn] = await other.store.listTurns({ chatKey: "telegram::chat-1:" });
    const messageId = `${turn?.id}#1`;
    await other.waitFor(async () => (await other.store.getOutbound("message", messageId)) !== undefined, 10_000);
    await queueStopped;

    const final = "Here is the first part of a long answer\n\n(stopped by ana)";
    expect(platform.messages.map((message) => message.text)).toEqual([final]);
    const shown = await other.store.getOutbound("message", messageId);
    expect(shown?.platformMessageIds).toEqual([platform.messages[0]?.id]);
  }, 30_000);
});
