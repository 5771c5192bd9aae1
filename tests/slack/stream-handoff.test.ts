import { afterEach, describe, expect, it } from "vitest";
import type { HeldResponse } from "../fakes/held-responses.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { temporaryDatabaseUrl } from "../world/harness.js";
import { ana, type WorldSlack, worldOnSlack } from "./world-slack.js";

let service: WorldSlack | undefined;
let held: HeldResponse | undefined;
afterEach(async () => {
  held?.release();
  await service?.close();
  service = held = undefined;
});

describe("Slack: a streamed answer handed to its delivery", () => {
  // With several processes the delivery may run in another one, which knows of the stream only
  // what is recorded: an answer published while the stream's first post was still on its way
  // was posted anew there, beside that post (a chaos run showed one answer twice).
  it("is published only once the message its stream posted is recorded", async () => {
    service = await worldOnSlack({
      mode: "http",
      databaseUrl: temporaryDatabaseUrl(),
      agents: [{ name: "alice", provider: new ScriptedProvider([{ text: "The plan is ready." }]) }],
      world: { defaultAgent: "alice" },
      adapter: { replyIn: "channel" },
    });
    const published: string[] = [];
    service.world.roundtable.engine.outbox.subscribe((event) => {
      if (event.type === "message" && event.message.author.kind === "agent") published.push(event.message.id);
    });
    held = service.fake.holdNext("chat.postMessage");
    void service.say(ana, "what is the plan?");
    await held.reached;
    // The model is done at once; the stream's post is still unanswered.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(published).toEqual([]);
    held.release();
    await service.world.waitFor(() => published.length === 1);
    const [messageId] = published;
    await service.settle();
    expect((await service.world.store.getOutbound("message", messageId ?? ""))?.platformMessageIds).toHaveLength(1);
    expect(service.fake.botPosts("C0TEAM").map((post) => post.text)).toEqual(["The plan is ready."]);
  }, 30_000);
});
