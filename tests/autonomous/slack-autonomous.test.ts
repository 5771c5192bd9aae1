import { afterEach, describe, expect, it } from "vitest";
import type { RunningHttpServer } from "../../src/http/start-http-server.js";
import { chatKey } from "../../src/world/chat-ref.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, channel, eve, teamId, type WorldSlack, worldOnSlack } from "../slack/world-slack.js";
import { post, serveTriggers } from "./trigger-client.js";

let s: WorldSlack | undefined;
let server: RunningHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  await s?.close();
  server = undefined;
  s = undefined;
});

/** The world's clock, moved by the test: due times come without waiting real minutes. */
function testClock(iso: string) {
  let now = Date.parse(iso);
  return {
    clock: () => new Date(now),
    set(to: string) {
      now = Date.parse(to);
    },
  };
}

/** Answers a schedule's prompt with the time its line carries; runs `echo hello` when asked. */
function reporter() {
  let answers = 0;
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `ran it: ${last.text.replace(/\s+/g, " ").trim()}` };
    if (last?.text.includes("run-echo")) {
      return { text: "Checking.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
    }
    answers += 1;
    return { text: `stand-up summary ${answers}` };
  });
}

const scheduleChat = { platform: "slack", id: channel };

describe("schedules and triggers on Slack", () => {
  it("a minute schedule runs once per occurrence over several occurrences, each shown as '⏰ standup' and answered in the channel", async () => {
    const time = testClock("2026-06-01T09:00:30Z");
    const bob = reporter();
    s = await worldOnSlack({
      mode: "http",
      agents: [{ name: "bob", provider: bob }],
      worldClock: time.clock,
      autonomous: {
        schedules: [
          { name: "standup", world: "main", chat: scheduleChat, agent: "bob", cron: "* * * * *", prompt: "Summarise." },
        ],
      },
    });
    const scheduler = s.world.roundtable.scheduler;
    await scheduler.tick();
    await s.settle();
    expect(bob.requests).toHaveLength(0);
    for (const at of ["2026-06-01T09:01:00Z", "2026-06-01T09:01:40Z", "2026-06-01T09:02:05Z", "2026-06-01T09:03:59Z"]) {
      time.set(at);
      // Several ticks at one time, as a second timer in the same process would make.
      await Promise.all([scheduler.tick(), scheduler.tick()]);
      await scheduler.tick();
      await s.settle();
    }
    expect(bob.requests).toHaveLength(3);
    const texts = s.fake.botPosts(channel).map((message) => message.text);
    expect(texts.filter((text) => text.includes("⏰ standup"))).toHaveLength(3);
    expect(texts.filter((text) => /stand-up summary \d/.test(text))).toHaveLength(3);
    expect(bob.requests[0]?.messages.at(-1)?.text).toBe("⏰ standup: Summarise.");
    const runs = await s.world.store.listAutonomousRuns({ source: "schedule", name: "standup" });
    expect(runs.map((run) => run.occurrence).sort()).toEqual([
      "2026-06-01T09:01:00.000Z",
      "2026-06-01T09:02:00.000Z",
      "2026-06-01T09:03:00.000Z",
    ]);
    // The channel's chat as Slack names it (its workspace), so its cards' presses match.
    expect(runs[0]?.chatKey).toBe(chatKey({ platform: "slack", workspace: teamId, channel }));
  });

  it("a trigger's tool call in a Slack channel: refused to a person not listed, approved by a listed one, answered in the channel", async () => {
    const bob = reporter();
    const secret = "deploy-secret-0123456789";
    s = await worldOnSlack({
      mode: "http",
      agents: [{ name: "bob", provider: bob, tools: ["shell_cmd"] }],
      world: { approvers: { slack: ["requester", ana] } },
      autonomous: {
        triggers: [{ name: "deploys", world: "main", chat: scheduleChat, agent: "bob", secret, prompt: "{{body}}" }],
      },
    });
    server = await serveTriggers(s.world.roundtable);
    const answer = await post(server.port, "/triggers/deploys", JSON.stringify({ ask: "run-echo" }), {
      authorization: `Bearer ${secret}`,
    });
    expect(answer.status).toBe(202);
    await s.settle();
    const cards = s.fake
      .botPosts(channel)
      .filter((message) => (message.blocks ?? []).length > 0 && /shell_cmd/.test(JSON.stringify(message.blocks)));
    expect(cards).toHaveLength(1);
    const card = cards[0];
    if (!card) throw new Error("no card");
    await s.press(eve, card, /Approve once/);
    expect(bob.requests).toHaveLength(1);
    const [pending] = await s.world.store.listApprovals({});
    expect(pending?.state).toBe("pending");
    await s.press(ana, card, /Approve once/);
    expect((await s.world.store.getApproval(pending?.id ?? ""))?.state).toBe("approved");
    expect(bob.requests).toHaveLength(2);
    const texts = s.fake.botPosts(channel).map((message) => message.text);
    expect(texts[0]).toContain("⚡ deploys");
    expect(texts.at(-1)).toMatch(/ran it: exit code: 0 .*hello/);
  });
});
