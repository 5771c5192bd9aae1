import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** About 5,000 characters: prose, a 1,200-character code block across the first 2,000, more prose. */
function longAnswer(): { text: string; code: string[] } {
  const prose = (label: string, count: number) =>
    Array.from(
      { length: count },
      (_, index) => `${label} ${index}: ${"a sentence that explains the plan. ".repeat(4).trim()}`,
    );
  const code = Array.from({ length: 30 }, (_, index) => `    run_step(${index}, retries=3)  # step ${index}`);
  const text = [...prose("Intro", 10), `\`\`\`python\n${code.join("\n")}\n\`\`\``, ...prose("Outro", 15)].join("\n\n");
  return { text, code };
}

describe("threads on Discord", () => {
  it("a thread is its own chat bound like its channel; two agents address each other there under their own names", async () => {
    const alice = new ScriptedProvider((_request, index) => ({
      text: index === 0 ? "@bob what do you think?" : "Thanks, agreed.",
    }));
    const bob = new ScriptedProvider(() => ({ text: "I agree with the plan." }));
    t = await worldOnDiscord({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      world: { turnLimit: 3 },
      identities: [
        { name: "alice", displayName: "Alice" },
        { name: "bob", displayName: "Bob" },
      ],
    });
    const thread = t.fake.addThread(t.general.id, "release planning");
    await t.say(t.ana, "@alice plan the release with bob", { channelId: thread.id });
    await t.world.waitFor(() => t?.posts(thread.id).some((post) => post.content.includes("stopping here")) ?? false);
    await t.world.idle();

    const posts = t.posts(thread.id);
    expect(posts.slice(0, 3).map((post) => [post.author.username, post.content])).toEqual([
      ["Alice", "@bob what do you think?"],
      ["Bob", "@alice I agree with the plan."],
      ["Alice", "@bob Thanks, agreed."],
    ]);
    for (const post of posts.slice(0, 3)) expect(post.webhook_id).toBeDefined();
    // The thread's posts go through the parent channel's webhook with thread_id.
    const executes = t.fake.callsTo("POST", /^\/webhooks\/\d+\/[^/]+$/);
    expect(executes.length).toBeGreaterThanOrEqual(3);
    for (const call of executes) expect(call.query).toContain(`thread_id=${thread.id}`);
    expect(t.posts(t.general.id)).toEqual([]);
    const stored = await t.world.store.listMessages(t.chatKeyOf(thread.id));
    expect(stored[0]?.chatKey).toBe(`discord:${t.guildId}:${t.general.id}:${thread.id}`);
    expect(bob.requests).toHaveLength(1);
    // The world's hand-back names Ana as a real Discord mention (she is notified, nobody else).
    const handBack = posts.find((post) => post.content.includes("stopping here"));
    expect(handBack?.content).toMatch(new RegExp(`^<@${t.ana.id}> `));
    const handBackCall = t.fake.callsTo("POST", /^\/channels\/\d+\/messages$/).at(-1);
    expect((handBackCall?.body as { allowed_mentions?: unknown } | undefined)?.allowed_mentions).toEqual({
      parse: [],
      users: [t.ana.id],
    });
  });

  it("the first turn in a thread sees the message the thread was started from", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Looks complete." }));
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    const starter = t.fake.userMessage({
      channelId: t.general.id,
      author: t.olga,
      content: "Release 2.0 checklist: tag, build, announce",
    });
    await t.settle(starter);
    const thread = t.fake.addThread(t.general.id, "Release 2.0", starter.id);
    alice.requests.length = 0;
    await t.say(t.ana, "is anything missing?", { channelId: thread.id });
    expect(alice.requests).toHaveLength(1);
    const seen = alice.requests[0]?.messages.map((message) => message.text).join("\n") ?? "";
    expect(seen).toContain("Release 2.0 checklist: tag, build, announce");
    expect(seen).toContain("is anything missing?");
    const stored = await t.world.store.listMessages(t.chatKeyOf(thread.id));
    expect(stored.map((message) => message.text).slice(0, 2)).toEqual([
      "Release 2.0 checklist: tag, build, announce",
      "is anything missing?",
    ]);
  });

  it("an approval card in a thread is decided there: the press finds the thread's chat", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: "done in the thread" };
      return { text: "Checking.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["t"] } }] };
    });
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    const thread = t.fake.addThread(t.general.id, "ops");
    await t.say(t.ana, "@alice run it", { channelId: thread.id });
    const card = t.posts(thread.id).find((post) => post.components.length > 0);
    if (!card) throw new Error("no card in the thread");
    const press = await t.press(t.ana, card, customIdOf(card, "Approve once"));
    expect(press.ephemeral).toEqual(["Approved once."]);
    await t.world.waitFor(() => alice.requests.length === 2);
    await t.world.idle();
    expect(t.posts(thread.id).at(-1)?.content).toBe("done in the thread");
    expect(t.fake.message(card.id)?.components).toEqual([]);
  });

  it("a 5,000-character answer with a code block arrives in parts of at most 2,000 characters, the block whole", async () => {
    const { text, code } = longAnswer();
    expect(text.length).toBeGreaterThan(4800);
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: new ScriptedProvider([{ text }]) }] });
    await t.say(t.ana, "@alice explain");
    const parts = t.posts().map((post) => post.content);
    expect(parts.length).toBe(3);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(2000);
      expect((part.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    const withCode = parts.filter((part) => part.includes("run_step("));
    expect(withCode).toHaveLength(1);
    expect(withCode[0]).toContain(`\`\`\`python\n${code.join("\n")}\n\`\`\``);
    expect(parts.join("\n\n")).toBe(text);
  });
});

function customIdOf(card: { components: unknown[] }, label: string): string {
  const rows = card.components as { components: { label: string; custom_id: string }[] }[];
  return rows.flatMap((row) => row.components).find((button) => button.label === label)?.custom_id ?? "";
}
