import { afterEach, describe, expect, it } from "vitest";
import { SlackAdapter } from "../../channels/slack/adapter.js";
import type { SlackAdapterOptions } from "../../channels/slack/options.js";
import type { ApprovalCard, ApprovalOutcome } from "../../src/world/approval-types.js";
import type { PartKey } from "../../src/world/delivery/post-key.js";
import { worldAuthor as system } from "../../src/world/message.js";
import type { SentRef } from "../../src/world/outbound-text.js";
import { defaultScopes, FakeSlack } from "../fakes/slack-api.js";
import { capturingLogger, InstantClock, RecordingSink } from "../telegram/helpers.js";
import { ana, botToken, channel, signingSecret, teamId } from "./world-slack.js";

let fake: FakeSlack | undefined;
let adapter: SlackAdapter | undefined;
afterEach(async () => {
  await adapter?.stop();
  await fake?.close();
  adapter = undefined;
  fake = undefined;
});

/** The adapter alone over HTTP events (nothing arrives here), on the fake Slack. */
async function started(options: Partial<SlackAdapterOptions> = {}, scopes: string[] = defaultScopes) {
  fake = await FakeSlack.start({ botToken, signingSecret, teamId, scopes, users: [{ id: ana, name: "ana" }] });
  const { logger, lines } = capturingLogger();
  adapter = new SlackAdapter({
    botToken,
    signingSecret,
    apiUrl: fake.apiUrl,
    agents: [{ name: "alice", displayName: "Alice" }],
    logger,
    clock: new InstantClock(),
    ...options,
  });
  await adapter.start(new RecordingSink());
  const root = fake.messages.add({ channel, user: ana, text: "root" });
  const thread = { platform: "slack" as const, workspace: teamId, channel, thread: root.ts };
  const replies = () => (fake?.botPosts(channel, root.ts) ?? []).filter((post) => post.ts !== root.ts);
  return { fake, adapter, lines, thread, replies };
}

const alice = { kind: "agent" as const, id: "alice", name: "alice" };
const key = (name: string, mayExist: boolean, extra: Partial<PartKey> = {}): PartKey => ({
  key: name,
  mayExist,
  since: new Date(Date.now() - 60_000),
  ...extra,
});

function card(padding = "hi"): ApprovalCard {
  const argumentsJson = JSON.stringify({ command: "echo", args: [padding] });
  return {
    approvalId: "approval-1",
    shortId: "a1",
    agent: "alice",
    tool: "shell_cmd",
    argumentsJson,
    argumentsPreview: argumentsJson.slice(0, 200),
    reason: "shell_cmd needs approval",
    requestedFor: "Ana",
    choices: ["once", "session", "deny"],
    expiresAt: new Date(Date.now() + 60_000),
  };
}

const outcome: ApprovalOutcome = {
  approvalId: "approval-1",
  shortId: "a1",
  agent: "alice",
  tool: "shell_cmd",
  argumentsPreview: "{}",
  state: "denied",
  decidedBy: { id: ana, name: "Ana" },
  at: new Date(),
};

describe("the Slack primitives", () => {
  it("renders an agent's text under its own name and icon when the app may, else led by its bold name", async () => {
    const h = await started();
    const [own] = await h.adapter.renderParts(h.thread, { author: alice, text: "**Done** & dusted" });
    expect(own).toEqual({ text: "*Done* &amp; dusted", identity: { username: "Alice" } });
    await h.adapter.stop();
    await h.fake.close();
    const bare = await started(
      {},
      defaultScopes.filter((scope) => scope !== "chat:write.customize"),
    );
    const [prefixed] = await bare.adapter.renderParts(bare.thread, { author: alice, text: "**Done**" });
    expect(prefixed).toEqual({ text: "*Alice:* *Done*", identity: {} });
  });

  it("renders a long text as parts each below Slack's limit, one platform message each", async () => {
    const h = await started();
    const text = ["first", "second", "third"].map((word) => `${word} `.repeat(700).trim()).join("\n\n");
    const parts = await h.adapter.renderParts(h.thread, { author: alice, text });
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const part of parts) expect(part.text.length).toBeLessThanOrEqual(3900);
    expect(h.adapter.samePart(parts[0] ?? { text: "" }, { ...parts[0], text: parts[0]?.text ?? "" })).toBe(true);
    expect(h.adapter.samePart(parts[0] ?? { text: "" }, parts[1] ?? { text: "" })).toBe(false);
  });

  it("sends a part with its key as metadata, a Stop button while live, and edits the button away", async () => {
    const h = await started();
    const [part] = await h.adapter.renderParts(h.thread, { author: alice, text: "Half of" });
    if (!part) throw new Error("no part");
    const id = await h.adapter.sendPart(h.thread, alice, part, { key: key("turn-1#1:0", false), live: true });
    const [post] = h.replies();
    expect(post).toMatchObject({ ts: id, text: "Half of", username: "Alice" });
    expect(post?.metadata).toEqual({ event_type: "roundtable_post", event_payload: { key: "turn-1#1:0" } });
    expect(JSON.stringify(post?.blocks)).toContain("roundtable_stop");
    await h.adapter.editPart(h.thread, alice, id, { ...part, text: "Half of it, whole." });
    expect(h.replies()[0]).toMatchObject({ ts: id, text: "Half of it, whole.", blocks: [] });
  });

  it("a system part carries no Stop button, however live", async () => {
    const h = await started();
    await h.adapter.sendPart(h.thread, system, { text: "notice" }, { live: true });
    expect(h.replies()[0]?.blocks).toBeUndefined();
  });

  it("deletes a part, and a part already gone is no error", async () => {
    const h = await started();
    const id = await h.adapter.sendPart(h.thread, alice, { text: "bye" });
    await h.adapter.deletePart(h.thread, alice, id);
    expect(h.replies()).toHaveLength(0);
    await h.adapter.deletePart(h.thread, alice, "1700000000.000001");
  });

  it("finds an earlier run's post by the key it carries as metadata", async () => {
    const h = await started();
    await h.adapter.sendPart(h.thread, alice, { text: "other" }, { key: key("turn-0#1:0", false) });
    const id = await h.adapter.sendPart(h.thread, alice, { text: "mine" }, { key: key("turn-1#1:0", false) });
    const found = await h.adapter.findPosted(h.thread, alice, key("turn-1#1:0", true), { text: "mine" });
    expect(found).toEqual({ id });
    expect(h.fake.callsTo("conversations.replies").at(-1)?.params.include_all_metadata).toBeTruthy();
    expect(await h.adapter.findPosted(h.thread, alice, key("turn-2#1:0", true), { text: "mine" })).toBeUndefined();
  });

  it("a look-up Slack refuses finds nothing, with a warn log line (the world then posts)", async () => {
    const h = await started();
    h.fake.failNext("conversations.replies", { status: 200, error: "missing_scope" });
    expect(await h.adapter.findPosted(h.thread, alice, key("turn-1#1:0", true), { text: "x" })).toBeUndefined();
    expect(
      h.lines.some((line) => line.level === 40 && /could not look for an earlier run's post/.test(String(line.msg))),
    ).toBe(true);
  });

  it("sends a card as the app with its key; a card an earlier run posted is shown again, not posted twice", async () => {
    const h = await started();
    const first = await h.adapter.sendCard(h.thread, card(), key("card:approval-1:0", false));
    expect(first.attach).toBeUndefined();
    const again = await h.adapter.sendCard(h.thread, card(), key("card:approval-1:0", true));
    expect(again.id).toBe(first.id);
    expect(h.replies()).toHaveLength(1);
    expect(h.replies()[0]?.username).toBeUndefined();
    expect(JSON.stringify(h.replies()[0]?.blocks)).toContain("roundtable_approval_once");
  });

  it("a card too long for its arguments attaches them as a file only when the world runs attach", async () => {
    const h = await started();
    const sent = await h.adapter.sendCard(h.thread, card("x".repeat(4000)));
    expect(h.fake.files).toHaveLength(0);
    await sent.attach?.();
    expect(h.fake.files).toHaveLength(1);
    expect(h.fake.files[0]).toMatchObject({ channel, thread_ts: h.thread.thread });
  });

  it("edits a card to its outcome, says gone when the card is deleted, and renders the outcome as a part", async () => {
    const h = await started();
    const { id } = await h.adapter.sendCard(h.thread, card());
    expect(await h.adapter.editCard(h.thread, id, outcome)).toBe("edited");
    expect(h.replies()[0]?.text).toMatch(/^Denied by Ana/);
    expect(JSON.stringify(h.replies()[0]?.blocks)).not.toContain("roundtable_approval_once");
    const shown = h.fake.messages.find(channel, id);
    if (shown) shown.deleted = true;
    expect(await h.adapter.editCard(h.thread, id, outcome)).toBe("gone");
    expect(await h.adapter.editCard(h.thread, "1700000000.000001", outcome)).toBe("gone");
    const part = await h.adapter.renderOutcome(h.thread, outcome);
    await h.adapter.sendPart(h.thread, system, part, { key: key("outcome:approval-1:0", false) });
    expect(h.replies().map((post) => post.text)).toEqual([part.text]);
    expect(JSON.stringify(h.replies()[0]?.blocks)).toContain("Denied");
  });

  it("another refusal of a card's edit is an error", async () => {
    const h = await started();
    const { id } = await h.adapter.sendCard(h.thread, card());
    h.fake.failNext("chat.update", { status: 200, error: "internal_error" });
    await expect(h.adapter.editCard(h.thread, id, outcome)).rejects.toThrow(/internal_error/);
  });

  it("streams by edits, one change per interval, unless native streams are asked for in a thread", async () => {
    const h = await started({ updateIntervalMs: 700 });
    expect(h.adapter.streamMode(h.thread, alice)).toMatchObject({ kind: "edit", intervalMs: 700, liveControls: true });
    expect(h.adapter.streamMode(h.thread, system)).toMatchObject({ kind: "edit", liveControls: false });
    await h.adapter.stop();
    await h.fake.close();
    const native = await started({ stream: "native" });
    expect(native.adapter.streamMode(native.thread, alice).kind).toBe("native");
    const { thread: _thread, ...inChannel } = native.thread;
    expect(native.adapter.streamMode(inChannel, alice)).toMatchObject({ kind: "edit", intervalMs: 1000 });
  });

  it("a native stream records its message the moment it starts and settles carrying the answer's key", async () => {
    const h = await started({ stream: "native" });
    const mode = h.adapter.streamMode(h.thread, alice);
    if (mode.kind !== "native") throw new Error("not native");
    const recorded: SentRef[] = [];
    const postKey = { id: "turn-1#1", mayExist: false, since: new Date() };
    const stream = mode.open({ key: postKey, record: async (sent) => void recorded.push(sent) });
    stream.update("Hello");
    await stream.hold();
    const sent = await stream.finish("Hello, world.");
    expect(recorded).toEqual([sent]);
    const message = h.fake.messages.find(channel, sent.ids[0] ?? "");
    expect(message).toMatchObject({ text: "**Alice:** Hello, world.", streaming: false });
    expect(message?.metadata).toEqual({ event_type: "roundtable_post", event_payload: { key: "turn-1#1:0" } });
    expect(h.fake.callsTo("chat.postMessage")).toHaveLength(0);
  });

  it("in a native thread, looking for an answer's first part removes the keyless stream an earlier run left", async () => {
    const h = await started({ stream: "native" });
    const mode = h.adapter.streamMode(h.thread, alice);
    if (mode.kind !== "native") throw new Error("not native");
    // An earlier run's stream, cut off before it settled (so it carries no key).
    const cut = mode.open({ key: undefined, record: async () => {} });
    cut.update("Here is the first");
    await cut.hold();
    expect(h.replies()).toHaveLength(1);
    const again = key("turn-1#1:0", true);
    expect(await h.adapter.findPosted(h.thread, alice, again, { text: "**Alice:** x" })).toBeUndefined();
    expect(h.replies()).toHaveLength(0);
    expect(h.lines.some((line) => line.msg === "removing the native stream an earlier run left")).toBe(true);
  });

  it("a native stream abandoned removes what it showed", async () => {
    const h = await started({ stream: "native" });
    const mode = h.adapter.streamMode(h.thread, alice);
    if (mode.kind !== "native") throw new Error("not native");
    const stream = mode.open({ key: undefined, record: async () => {} });
    stream.update("Half");
    await stream.hold();
    await stream.abort();
    expect(h.replies()).toHaveLength(0);
  });
});
