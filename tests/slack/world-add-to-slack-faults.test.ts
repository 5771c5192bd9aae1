import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { alpha, beta, bothWorkspaces, oauth, openInstall, returnFromConsent } from "./add-to-slack.js";
import { ana, type WorldSlack, worldOnSlack } from "./world-slack.js";

// "Add to Slack" under Slack's refusals (docs/reliability.md, "A platform refuses"): an installed
// workspace's client is made with the Web API client's own retries off, like the bot token's, so
// its calls follow the same policy: a post whose answer was lost is looked up (with that
// workspace's token) and never posted twice; a 429 is waited out in its chat only.

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function install(world: WorldSlack, teamId: string): Promise<void> {
  const { cookie, location: authorizeUrl } = await openInstall(world);
  const { code, state } = world.fake.authorizeInstall({ authorizeUrl, teamId, user: ana });
  const back = await returnFromConsent(world, { code, state }, cookie);
  expect(back.status).toBe(200);
}

describe("Add to Slack: an installed workspace's calls follow the retry policy", () => {
  it("a post taken but answered 500 in one workspace is found with its token, not posted twice; a 429 in the other is waited out", async () => {
    t = await worldOnSlack({
      mode: "http",
      oauth,
      agents: [
        {
          name: "alice",
          provider: new ScriptedProvider((request) => ({ text: `Answer to ${ScriptedProvider.lastText(request)}` })),
        },
      ],
      world: { defaultAgent: "alice" },
      chats: bothWorkspaces,
    });
    await install(t, alpha.teamId);
    await install(t, beta.teamId);
    t.fake.failNext("chat.postMessage", { status: 500, channel: beta.channel, afterDoing: true });
    t.fake.failNext("chat.postMessage", { status: 429, retryAfterSeconds: 1, channel: alpha.channel });
    const asked = await Promise.all(
      [alpha, beta].map(async (where) => {
        const { message, delivery } = await (t as WorldSlack).fake.userMessage({ ...where, user: ana, text: "hi" });
        expect(delivery.status).toBe(200);
        return message.ts;
      }),
    );
    await t.settle();
    const world = t;
    [alpha, beta].forEach((where, index) => {
      const replies = world.fake
        .messagesIn(where.channel, asked[index])
        .filter((message) => message.bot_id !== undefined)
        .map((message) => [message.bot_id, message.text]);
      expect(replies).toEqual([[`B0BOT${where.teamId}`, expect.stringMatching(/^Answer to .*hi$/)]]);
    });
    const postsIn = (channel: string) =>
      world.fake.callsTo("chat.postMessage").filter((call) => call.params.channel === channel);
    // Slack stored beta's post once: the look-up found it, with beta's token, and nothing was sent again.
    expect(postsIn(beta.channel).map((call) => [call.status, call.team])).toEqual([[500, beta.teamId]]);
    const lookups = [...world.fake.callsTo("conversations.replies"), ...world.fake.callsTo("conversations.history")];
    expect(lookups.filter((call) => call.params.channel === beta.channel).map((call) => call.team)).toContain(
      beta.teamId,
    );
    expect(postsIn(alpha.channel).map((call) => [call.status, call.team])).toEqual([
      [429, alpha.teamId],
      [200, alpha.teamId],
    ]);
  });
});
