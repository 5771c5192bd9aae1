import { webApi } from "@slack/bolt";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type UserNameLimits, UserNames, userNameLookupsPerMessage } from "../../channels/slack/user-names.js";
import { FakeSlack } from "../fakes/slack-api.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, botToken, eve, signingSecret, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
let fake: FakeSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await fake?.close();
  fake = undefined;
});

/** A fake workspace with Ana in it, and `UserNames` asking it. */
async function namesOnFake(limits: Partial<UserNameLimits> = {}): Promise<{ names: UserNames; slack: FakeSlack }> {
  const slack = await FakeSlack.start({
    botToken,
    signingSecret,
    teamId: "T0FAKE",
    users: [{ id: "U1ANA", name: "ana", displayName: "Ana" }],
  });
  const client = new webApi.WebClient(botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  return { names: new UserNames(client, pino({ level: "silent" }), Date.now, limits), slack };
}

/** A Slack world whose one agent, alice, answers "ok" (closed after the test, as `t`). */
async function aliceOnSlack(): Promise<{ alice: ScriptedProvider; world: WorldSlack }> {
  const alice = new ScriptedProvider(() => ({ text: "ok" }));
  const world = await worldOnSlack({
    mode: "http",
    agents: [{ name: "alice", provider: alice }],
    world: { defaultAgent: "alice" },
  });
  t = world;
  return { alice, world };
}

/** The text of the last message in alice's `index`th model request ("" if not a person's). */
function lastTextSeen(alice: ScriptedProvider, index: number): string {
  const last = alice.requests[index]?.messages.at(-1);
  return last?.role === "user" ? last.text : "";
}

const strangers = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => `U9${String(from + index).padStart(6, "0")}`);

describe("Slack user names", () => {
  it("a message mentioning 200 unknown people costs at most the per-message cap of users.info calls; the rest keep their raw id", async () => {
    const { alice, world } = await aliceOnSlack();
    const before = world.fake.callsTo("users.info").length;
    const ids = strangers(200);
    await world.say(ana, `hi ${ids.map((id) => `<@${id}>`).join(" ")}`);
    // Ana's message: her name and the first mentions (the bot's own echoed post is a message of its own).
    const calls = world.fake
      .callsTo("users.info")
      .slice(before)
      .filter((call) => call.params.user === ana || ids.includes(String(call.params.user)));
    expect(calls.length).toBe(userNameLookupsPerMessage);
    // Ana (the sender) is named; the text the agent saw keeps the ids of those not looked up.
    expect(lastTextSeen(alice, 0)).toMatch(/^Ana: hi /);
    expect(lastTextSeen(alice, 0)).toContain(`@${ids[199]}`);
  });

  it("keeps at most its cache size of names, dropping the least recently used", async () => {
    const { names, slack } = await namesOnFake({ cacheSize: 5, lookupsPerMessage: 3 });
    fake = slack;
    expect(await names.nameOf("U1ANA")).toBe("Ana");
    for (const id of strangers(10)) await names.nameOf(id);
    expect(names.size).toBe(5);
    const calls = fake.callsTo("users.info").length;
    // Ana was pushed out: asked again. The newest stranger is still known: no call.
    await names.nameOf(strangers(1, 9)[0] ?? "");
    expect(fake.callsTo("users.info").length).toBe(calls);
    expect(await names.nameOf("U1ANA")).toBe("Ana");
    expect(fake.callsTo("users.info").length).toBe(calls + 1);
    // A batch looks up at most its cap.
    const batch = await names.namesOf(strangers(20, 100));
    expect(batch.size).toBe(3);
    expect(fake.callsTo("users.info").length).toBe(calls + 4);
  });

  it("an event is stored and acked while its sender's users.info hangs: the id stands in, and the name, once answered, labels the next message", async () => {
    const { alice, world } = await aliceOnSlack();
    const held = world.fake.holdNext("users.info");
    // Before: the event waited for the look-up, was refused at 2.5 s (503) and sent again, and
    // again, while the look-up (Slack busy, or queued behind hundreds of streamed edits) hung.
    await world.say(eve, "hi");
    await held.reached;
    const seen = (index: number) => lastTextSeen(alice, index);
    expect(seen(0)).toMatch(new RegExp(`^${eve}: hi`));
    held.release();
    await world.say(eve, "again");
    expect(seen(1)).toMatch(/^Eve: again/);
    // One look-up for both messages: the second found the first's answer.
    expect(world.fake.callsTo("users.info").filter((call) => call.params.user === eve)).toHaveLength(1);
    expect(
      world.lines.some((line) => line.msg === "slack user names: look-up slow; ids stand in for this message"),
    ).toBe(true);
  });

  it("messages waiting for the same person's look-up share one users.info call", async () => {
    const { names, slack } = await namesOnFake();
    fake = slack;
    const all = await Promise.all(Array.from({ length: 5 }, () => names.namesOf(["U1ANA"])));
    expect(all.map((found) => found.get("U1ANA"))).toEqual(["Ana", "Ana", "Ana", "Ana", "Ana"]);
    expect(fake.callsTo("users.info")).toHaveLength(1);
  });
});
