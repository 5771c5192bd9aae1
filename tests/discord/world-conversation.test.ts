import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { mainToken } from "./helpers.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const alice = { name: "alice", displayName: "Alice Liddell", avatarUrl: "https://example.test/alice.png" };

describe("a conversation in a Discord channel through the world engine", () => {
  it("a message in a bound channel gets the agent's streamed answer under its name and avatar (webhook)", async () => {
    const answer = "Here is the plan: first we build, then we ship, and then we celebrate with cake.";
    const model = new ScriptedProvider([{ text: answer }]);
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: model }],
      identities: [alice],
      world: { defaultAgent: "alice" },
    });
    await t.say(t.ana, "what is the plan?");

    const posts = t.posts();
    expect(posts).toHaveLength(1);
    const [post] = posts;
    expect(post?.webhook_id).toBeDefined();
    expect(post?.author).toMatchObject({ username: "Alice Liddell", avatar: "https://example.test/alice.png" });
    expect(post?.content).toBe(answer);
    // Sent while the model was writing, then edited to the final text.
    expect(post?.history.length).toBeGreaterThan(1);
    expect(post?.history.at(0)).not.toBe(answer);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.messages.at(-1)?.text).toContain("what is the plan?");
    // The webhook's echo came back on the gateway and started nothing.
    const stored = await t.world.store.listMessages(t.chatKeyOf());
    expect(stored.map((message) => message.author.kind)).toEqual(["human", "agent"]);
  });

  it("where the bot may not manage webhooks, the answer comes from the bot with the agent's name in bold", async () => {
    const model = new ScriptedProvider([{ text: "On it." }]);
    t = await worldOnDiscord({
      agents: [{ name: "alice", provider: model }],
      identities: [alice],
      world: { defaultAgent: "alice" },
    });
    await t.say(t.ana, "@alice go", { channelId: t.locked.id });
    const posts = t.posts(t.locked.id);
    expect(posts.map((post) => post.content)).toEqual(["**Alice Liddell:** On it."]);
    expect(posts[0]?.sentByToken).toBe(mainToken);
    expect(posts[0]?.webhook_id).toBeUndefined();
  });

  it("mentioning the bot routes to the agent named after it; a reply to an agent's message addresses that agent", async () => {
    const roundtable = new ScriptedProvider(() => ({ text: "roundtable here" }));
    const bob = new ScriptedProvider(() => ({ text: "bob here" }));
    t = await worldOnDiscord({
      agents: [
        { name: "roundtable", provider: roundtable },
        { name: "bob", provider: bob },
      ],
      world: { defaultAgent: "bob" },
    });
    await t.say(t.ana, `<@${t.bot.id}> hello`);
    expect(roundtable.requests).toHaveLength(1);
    expect(bob.requests).toHaveLength(0);

    await t.say(t.ana, "hi all");
    expect(bob.requests).toHaveLength(1);
    const bobPost = t.posts().find((post) => post.content === "bob here");
    expect(bobPost).toBeDefined();

    await t.say(t.ana, "thanks, more please", { replyTo: t.posts()[0]?.id ?? "" });
    expect(roundtable.requests).toHaveLength(2);
    expect(bob.requests).toHaveLength(1);
  });

  it("a message delivered twice is answered once", async () => {
    const model = new ScriptedProvider(() => ({ text: "once" }));
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: model }], world: { defaultAgent: "alice" } });
    const message = await t.say(t.ana, "ping");
    t.fake.redeliver(message);
    await t.settle(message);
    expect(model.requests).toHaveLength(1);
    expect(t.posts()).toHaveLength(1);
  });
});
