import { afterEach, describe, expect, it } from "vitest";
import { chatKey } from "../../src/world/chat-ref.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { SlackStoredMessage } from "../fakes/slack-api.js";
import { alpha, beta, bothWorkspaces, oauth, openInstall, returnFromConsent } from "./add-to-slack.js";
import { ana, olga, type WorldSlack, worldOnSlack } from "./world-slack.js";

// "Add to Slack" (docs/slack.md): two workspaces install the app through the OAuth flow against
// the fake Slack (consent page → code → `oauth.v2.access`), each is answered with its own token,
// a press in one cannot decide a card of the other, and uninstalling one deletes only its token.

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const bob = "U5BOB";

/** A model that runs `echo hello` once, then says what the tool said. */
function echoOnce() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.trim()}` };
    return { text: "Let me check.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
  });
}

/** `/slack/install`: a redirect to the consent page, with the state also in a cookie. */
async function startInstall(world: WorldSlack): Promise<{ location: URL; cookie: string }> {
  const { status, cookie, location } = await openInstall(world);
  expect(status).toBe(302);
  expect(cookie).toMatch(/^slack-app-oauth-state=.+/);
  return { location: new URL(location), cookie };
}

/** A person in `teamId` goes through the whole install: consent, then back with the code and state. */
async function install(world: WorldSlack, teamId: string, user: string): Promise<void> {
  const { location, cookie } = await startInstall(world);
  const { code, state } = world.fake.authorizeInstall({ authorizeUrl: location.href, teamId, user });
  const answer = await returnFromConsent(world, { code, state }, cookie);
  expect(answer).toEqual({ status: 200, text: `Roundtable is installed in ${teamId}. You can close this page.` });
}

async function write(world: WorldSlack, where: { teamId: string; channel: string }, user: string, text: string) {
  const { message, delivery } = await world.fake.userMessage({ ...where, user, text });
  expect(delivery.status).toBe(200);
  await world.settle();
  return message;
}

const appPosts = (world: WorldSlack, channel: string, threadTs: string): SlackStoredMessage[] =>
  world.fake.messagesIn(channel, threadTs).filter((message) => message.bot_id !== undefined);

function buttonValue(card: SlackStoredMessage, label: RegExp): { action_id: string; value: string } {
  const actions = (card.blocks ?? []).find((block) => (block as { type?: string }).type === "actions") as
    | { elements: { action_id: string; value: string; text: { text: string } }[] }
    | undefined;
  const button = actions?.elements.find((element) => label.test(element.text.text));
  if (!button) throw new Error(`no button ${label}`);
  return button;
}

describe("Add to Slack: many workspaces, each with its own token", () => {
  it("a forged or foreign state is refused before any code is exchanged, and nothing is installed", async () => {
    t = await worldOnSlack({ mode: "http", oauth, agents: [{ name: "alice", provider: echoOnce() }] });
    const { location, cookie } = await startInstall(t);
    expect(`${location.origin}${location.pathname}`).toBe(`${t.fake.origin}/oauth/v2/authorize`);
    expect(location.searchParams.get("client_id")).toBe(oauth.clientId);
    expect(location.searchParams.get("scope")?.split(",")).toEqual(
      expect.arrayContaining(["chat:write", "assistant:write", "commands"]),
    );
    const { code, state } = t.fake.authorizeInstall({ authorizeUrl: location.href, ...alpha, user: ana });
    // A state made up, and the right state from a browser that never started the install.
    const forged = await returnFromConsent(t, { code, state: "forged-state" }, cookie);
    const foreign = await returnFromConsent(t, { code, state });
    const anotherBrowser = await startInstall(t);
    const crossed = await returnFromConsent(t, { code, state }, anotherBrowser.cookie);
    for (const answer of [forged, foreign, crossed]) expect(answer.status).toBe(400);
    expect(forged.text).toMatch(/^The install did not complete:/);
    expect(t.fake.callsTo("oauth.v2.access")).toEqual([]);
    expect(await t.world.store.findChannelInstallation("slack", alpha.teamId)).toBeUndefined();
    expect(t.lines.filter((line) => String(line.msg).startsWith("slack install refused"))).toHaveLength(3);
  });

  it("two workspaces installed; each answered with its own token; a press from one cannot decide the other's card; uninstalling one removes only it", async () => {
    const alice = echoOnce();
    t = await worldOnSlack({
      mode: "http",
      oauth,
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice", approvers: { slack: [olga] } },
      chats: bothWorkspaces,
    });
    await install(t, alpha.teamId, ana);
    await install(t, beta.teamId, bob);
    const exchanges = t.fake.callsTo("oauth.v2.access");
    expect(exchanges.map((call) => [call.ok, call.params.client_id])).toEqual([
      [true, oauth.clientId],
      [true, oauth.clientId],
    ]);
    const tokenOf = (teamId: string) => t?.fake.workspaces.get(teamId)?.botToken ?? "none";
    const stored = await t.world.store.findChannelInstallation("slack", alpha.teamId);
    expect(stored).toMatchObject({
      botId: `B0BOT${alpha.teamId}`,
      botUserId: `U0BOT${alpha.teamId}`,
      installedBy: ana,
    });
    // Sealed at rest: the token is nowhere in the row.
    expect(JSON.stringify(stored)).not.toContain(tokenOf(alpha.teamId));
    expect(stored?.scopes).toContain("chat:write");

    // Each workspace's question: its card posted with its own token.
    const rootA = await write(t, alpha, ana, "run echo");
    const rootB = await write(t, beta, bob, "run echo too");
    const [cardA] = appPosts(t, alpha.channel, rootA.ts).filter((post) => (post.blocks ?? []).length > 0);
    const [cardB] = appPosts(t, beta.channel, rootB.ts).filter((post) => (post.blocks ?? []).length > 0);
    if (!cardA || !cardB) throw new Error("a workspace got no card");
    expect(cardA.bot_id).toBe(`B0BOT${alpha.teamId}`);
    expect(cardB.bot_id).toBe(`B0BOT${beta.teamId}`);
    const posts = t.fake.callsTo("chat.postMessage").filter((call) => call.ok);
    expect(new Set(posts.filter((call) => call.params.channel === alpha.channel).map((call) => call.team))).toEqual(
      new Set([alpha.teamId]),
    );
    expect(new Set(posts.filter((call) => call.params.channel === beta.channel).map((call) => call.team))).toEqual(
      new Set([beta.teamId]),
    );

    // Someone in workspace B presses A's card's button: refused, told with B's token; nothing decided.
    const approve = buttonValue(cardA, /Approve once/);
    const crossed = await t.fake.press({
      user: olga,
      channel: alpha.channel,
      messageTs: cardA.ts,
      actionId: approve.action_id,
      value: approve.value,
      teamId: beta.teamId,
    });
    expect(crossed.status).toBe(200);
    await t.settle();
    const refusal = t.fake.callsTo("chat.postEphemeral").at(-1);
    expect(refusal?.team).toBe(beta.teamId);
    expect(String(refusal?.params.text)).toMatch(/does not exist \(or is not from this chat\)/);
    const threadA = chatKey({ platform: "slack", workspace: alpha.teamId, channel: alpha.channel, thread: rootA.ts });
    const [pendingA] = await t.world.store.listApprovals({ chatKey: threadA });
    expect(pendingA?.state).toBe("pending");
    expect(alice.requests).toHaveLength(2);

    // The approver in workspace A decides A's card: the tool runs, the answer comes with A's token.
    const decided = await t.fake.press({
      user: olga,
      channel: alpha.channel,
      messageTs: cardA.ts,
      actionId: approve.action_id,
      value: approve.value,
      teamId: alpha.teamId,
    });
    expect(decided.status).toBe(200);
    await t.settle();
    const said = (channel: string, ts: string) =>
      appPosts(t as WorldSlack, channel, ts).some((post) => post.text.startsWith("tool said: exit code: 0"));
    expect(said(alpha.channel, rootA.ts)).toBe(true);
    expect(said(beta.channel, rootB.ts)).toBe(false);

    // Workspace B removes the app: its token is deleted, A's stays; B is no longer answered, A is.
    await t.fake.uninstall(beta.teamId);
    await t.settle();
    expect(await t.world.store.findChannelInstallation("slack", beta.teamId)).toBeUndefined();
    expect(await t.world.store.findChannelInstallation("slack", alpha.teamId)).toBeDefined();
    let callsBefore = t.fake.calls.length;
    await write(t, beta, bob, "anyone there?");
    expect(t.fake.calls.slice(callsBefore)).toEqual([]);
    callsBefore = t.fake.calls.length;
    await write(t, alpha, ana, "still here?");
    expect(t.fake.calls.slice(callsBefore).some((call) => call.team === alpha.teamId)).toBe(true);
    expect(t.lines.some((line) => line.msg === "slack app removed from a workspace; its token is deleted")).toBe(true);

    // Installed again: answered again, with the new token.
    await install(t, beta.teamId, bob);
    callsBefore = t.fake.calls.length;
    // Someone not seen before: their name is looked up with the new token too.
    const again = await write(t, beta, "U6CAROL", "back?");
    expect(appPosts(t, beta.channel, again.ts).map((post) => post.bot_id)).toContain(`B0BOT${beta.teamId}`);
    expect(new Set(t.fake.calls.slice(callsBefore).map((call) => call.team))).toEqual(new Set([beta.teamId]));

    // No token in any log line.
    const logged = JSON.stringify(t.lines);
    for (const token of [tokenOf(alpha.teamId), "xoxb-T0BETA"]) expect(logged).not.toContain(token);
  });
});
