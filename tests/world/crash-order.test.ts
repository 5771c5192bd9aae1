import { afterEach, describe, expect, it } from "vitest";
import type { ModelProvider, ModelRequest, StreamPart } from "../../src/providers/model-provider.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { systemClock } from "../../src/world/channel/channel-clock.js";
import { ana, groupId, mainToken } from "../telegram/helpers.js";
import { leadingMention, type WorldTelegram, worldOnTelegram } from "../telegram/world-telegram.js";
import { createHarness, temporaryDatabaseUrl } from "./harness.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * What a model reading the view does: it answers the earliest question it sees still open
 * (a question is `say X`; each assistant message closes the earliest open one). A view that
 * shows an answered question as open makes it answer that one again and lose the newest.
 */
function earliestOpen(request: ModelRequest): string {
  const open: string[] = [];
  for (const message of request.messages) {
    if (message.role === "assistant") open.shift();
    const said = /say (\w+)/.exec(message.text);
    if (message.role === "user" && said?.[1]) open.push(said[1]);
  }
  return open[0] ?? "nothing open";
}

function released(): { promise: Promise<void>; release: () => void } {
  let release: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

describe("a turn keeps its place in the chat's order across crashes", () => {
  it("killed during A's route step with B queued behind it: after the restart A is answered first, then B, once each", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    const options = (provider: ScriptedProvider) => ({
      databaseUrl,
      keepDatabase: true,
      agents: [{ name: "alice", provider }],
    });
    // The first process: A's route step is inside alice's model call when the process "dies"
    // (its call never returns, its job stays `running`), with B's route job queued behind it.
    const stuck = released();
    const dying = new ScriptedProvider(() => ({ text: "never", hold: stuck.promise }));
    const first = await createHarness(options(dying));
    cleanups.push(async () => {
      stuck.release();
      await first.close();
    });
    await first.say("@alice say A");
    await first.waitFor(() => dying.requests.length === 1);
    await first.say("@alice say B");
    expect(
      (await first.queue.jobStatus(`route:${(await first.store.listTurns({}))[0]?.triggerMessageId}`))?.state,
    ).toBe("running");

    // The next process on the same database takes A's route job back (attempt 2).
    const alice = new ScriptedProvider((request) => ({ text: earliestOpen(request) }));
    const second = await createHarness(options(alice));
    cleanups.push(() => second.close());
    await second.waitFor(() => second.channel.messages().length >= 2);
    await second.idle();

    expect(second.channel.messages().map((message) => `${message.author}: ${message.text}`)).toEqual([
      "alice: A",
      "alice: B",
    ]);
    // B's turn started after A's answer: its view shows A answered.
    expect(alice.requests).toHaveLength(2);
    expect(alice.requests[1]?.messages.map((message) => `${message.role}: ${message.text}`)).toEqual([
      "user: ana: @alice say A",
      "assistant: A",
      "user: ana: @alice say B",
    ]);
  });
});

describe("a streamed draft never overtakes an earlier answer waiting for its delivery", () => {
  it("@bob say A, @alice say B back to back: bob's answer (not streamed: the chat's edit interval) shows before alice's draft", async () => {
    const bobHeld = released();
    const bob = new ScriptedProvider((_request, index) => ({
      text: index === 0 ? "bob warms up" : "bob answers A",
      ...(index === 1 ? { hold: bobHeld.promise } : {}),
    }));
    let world: WorldTelegram = undefined as unknown as WorldTelegram;
    // Alice's answer streams: its first words show as a draft before the rest is written.
    const alice = new PausingStreamer(["alice answers B ", "with a streamed text"], () =>
      world.botTexts().some((text) => text.startsWith("alice: alice answers B")),
    );
    world = await worldOnTelegram({
      agents: [
        { name: "bob", provider: bob },
        { name: "alice", provider: alice },
      ],
      // Real time: a chat's streams wait out its edit interval after each post.
      clock: systemClock,
      adapter: { throttle: { groupIntervalMs: 400 } },
    });
    cleanups.push(() => world.close());
    // A post in the chat just now: bob's next answer is written before his stream may show it.
    await world.say(ana, "@bob say W");
    const send = (text: string) =>
      world.fake.userMessage(mainToken, { chatId: groupId, from: ana, text, entities: leadingMention(text) });
    send("@bob say A");
    await world.world.waitFor(() => bob.requests.length === 2);
    const { update } = send("@alice say B");
    // B is stored (its route job queued behind A's) before bob answers A.
    await world.world.waitFor(() => world.fake.confirmedOffset(mainToken) > (update.update_id as number));
    bobHeld.release();
    await world.settle(update);

    // The order a Telegram client shows: by message id, the moment each was first posted.
    expect(world.botTexts()).toEqual([
      "bob: bob warms up",
      "bob: bob answers A",
      "alice: alice answers B with a streamed text",
    ]);
  });
});

/** A model that streams its first piece, waits until `shown()` (its draft is in the chat), then the rest. */
class PausingStreamer implements ModelProvider {
  readonly name = "pausing";

  constructor(
    private readonly pieces: [string, string],
    private readonly shown: () => boolean,
  ) {}

  async *stream(): AsyncIterable<StreamPart> {
    yield { type: "text-delta", text: this.pieces[0] };
    while (!this.shown()) await new Promise((resolve) => setTimeout(resolve, 10));
    yield { type: "text-delta", text: this.pieces[1] };
    const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 };
    yield { type: "usage", usage };
    yield {
      type: "finish",
      response: { text: this.pieces.join(""), toolCalls: [], usage, finishReason: "stop" },
    };
  }
}
