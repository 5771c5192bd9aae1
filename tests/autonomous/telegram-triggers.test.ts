import { request } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunningHttpServer } from "../../src/http/start-http-server.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { StoredMessage } from "../fakes/telegram-api.js";
import { capturingLogger, eve, groupId } from "../telegram/helpers.js";
import { boss, groupKey, type WorldTelegram, worldOnTelegram } from "../telegram/world-telegram.js";
import { githubSignature, post, serveTriggers } from "./trigger-client.js";

const secret = "alert-secret-0123456789";
const trigger = {
  name: "alerts",
  world: "main",
  chat: { platform: "telegram", id: String(groupId) },
  agent: "alice",
  secret,
  prompt: "An alert came in; triage it:\n{{body}}",
};

let t: WorldTelegram | undefined;
let server: RunningHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  await t?.close();
  server = undefined;
  t = undefined;
});

/** A model that answers each prompt with its first line, or runs `echo hello` when the body asks for it. */
function triage() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `ran it: ${last.text.replace(/\s+/g, " ").trim()}` };
    const text = last?.role === "user" ? last.text : "";
    if (text.includes("run-echo")) {
      return { text: "Checking.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["hello"] } }] };
    }
    return { text: `triaged: ${/"alert": "([^"]+)"/.exec(text)?.[1] ?? "?"}` };
  });
}

async function start(options: { approvers?: Record<string, string[]>; approvalTimeout?: string } = {}) {
  const alice = triage();
  t = await worldOnTelegram({
    agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
    world: {
      approvers: options.approvers ?? { telegram: [String(boss.id)] },
      ...(options.approvalTimeout === undefined ? {} : { approvalTimeout: options.approvalTimeout }),
    },
    autonomous: { triggers: [trigger] },
  });
  const { logger, lines } = capturingLogger();
  server = await serveTriggers(t.world.roundtable, logger);
  return { alice, lines, port: server.port };
}

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

describe("triggers on Telegram: POST /triggers/<name>", () => {
  it("a GitHub-signed body and a bearer secret each start a turn whose answer is in the bound chat; the model sees the prompt with the body pretty-printed", async () => {
    const { alice, port } = await start();
    const body = JSON.stringify({ alert: "disk full", host: "db-1" });
    const signed = await post(port, "/triggers/alerts", body, { "x-hub-signature-256": githubSignature(secret, body) });
    expect(signed.status).toBe(202);
    const runId = String(signed.json().run);
    expect(runId).toMatch(/^trigger-/);
    await t?.world.idle();
    expect(t?.botTexts()).toEqual(["⚡ alerts", "alice: triaged: disk full"]);
    const prompt = alice.requests[0]?.messages.at(-1);
    expect(prompt?.role).toBe("user");
    expect(prompt?.text).toBe(
      `⚡ alerts: An alert came in; triage it:\n${JSON.stringify({ alert: "disk full", host: "db-1" }, null, 2)}`,
    );
    // The run's chain starter is the trigger: what budgets charge, and who "requester" is not.
    const turn = await t?.world.store.getTurn(`${runId}>alice`);
    expect(turn?.startedById).toBe("trigger:alerts");

    const bearer = await post(port, "/triggers/alerts", JSON.stringify({ alert: "cpu hot" }), {
      authorization: `Bearer ${secret}`,
    });
    expect(bearer.status).toBe(202);
    expect(bearer.json().run).not.toBe(runId);
    await t?.world.idle();
    expect(t?.botTexts().slice(2)).toEqual(["⚡ alerts", "alice: triaged: cpu hot"]);
    expect(alice.requests).toHaveLength(2);
  });

  it("refuses an unknown name (404), a bad or missing signature or bearer (401) and a body over 256 KiB (413), each logged, with nothing stored and no model request", async () => {
    const { alice, lines, port } = await start();
    const body = JSON.stringify({ alert: "x" });
    const answers = [
      await post(port, "/triggers/nope", body, { authorization: `Bearer ${secret}` }),
      await post(port, "/triggers/alerts", body, { "x-hub-signature-256": githubSignature("wrong-secret", body) }),
      await post(port, "/triggers/alerts", body, { "x-hub-signature-256": "sha256=00" }),
      await post(port, "/triggers/alerts", body),
      await post(port, "/triggers/alerts", body, { authorization: "Bearer wrong" }),
      await post(port, "/triggers/alerts", Buffer.alloc(300 * 1024, 0x61), { authorization: `Bearer ${secret}` }),
      await post(
        port,
        "/triggers/alerts",
        Buffer.alloc(300 * 1024, 0x61),
        { authorization: `Bearer ${secret}` },
        { chunked: true },
      ),
      await post(
        port,
        "/triggers/alerts",
        Buffer.alloc(300 * 1024, 0x61),
        { "x-hub-signature-256": githubSignature(secret, Buffer.alloc(300 * 1024, 0x61)) },
        { chunked: true },
      ),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([404, 401, 401, 401, 401, 413, 413, 413]);
    await t?.world.idle();
    expect(alice.requests).toHaveLength(0);
    expect(await t?.world.store.listAutonomousRuns({})).toEqual([]);
    expect(await t?.world.store.listMessages(groupKey)).toEqual([]);
    expect(t?.botTexts()).toEqual([]);
    const refusals = lines.filter((line) => /refused/.test(String(line.msg)));
    expect(refusals).toHaveLength(8);
    // The secret is never logged.
    expect(JSON.stringify(lines)).not.toContain(secret);
  });

  it("a client holding unsigned bodies open gets 429 past 1 MiB in flight, logged; once they end it is served again", async () => {
    const { lines, port } = await start();
    // Four bodies of 250 KiB each, sent but never ended: their signatures cannot be checked yet.
    const held = Array.from({ length: 4 }, () => {
      const outgoing = request({
        host: "127.0.0.1",
        port,
        path: "/triggers/alerts",
        method: "POST",
        headers: { "transfer-encoding": "chunked", "x-hub-signature-256": "sha256=00" },
      });
      const answered = new Promise<number>((resolve) => {
        outgoing.on("response", (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        outgoing.on("error", () => resolve(0));
      });
      outgoing.write(Buffer.alloc(250 * 1024, 0x61));
      return { outgoing, answered };
    });
    // Each held body's bytes are admitted before the fifth request, so the fifth is the one past the cap.
    await vi.waitFor(() => expect(t?.world.roundtable.triggerBodyBytesInFlight("127.0.0.1")).toBe(4 * 250 * 1024), {
      timeout: 10_000,
    });
    const fifth = await post(
      port,
      "/triggers/alerts",
      Buffer.alloc(250 * 1024, 0x61),
      { "x-hub-signature-256": "sha256=00" },
      { chunked: true },
    );
    expect(fifth.status).toBe(429);
    expect(lines.some((line) => /too many upload bytes in flight/.test(JSON.stringify(line)))).toBe(true);
    for (const { outgoing } of held) outgoing.end();
    expect(await Promise.all(held.map((one) => one.answered))).toEqual([401, 401, 401, 401]);
    const body = JSON.stringify({ alert: "disk" });
    const served = await post(port, "/triggers/alerts", body, { "x-hub-signature-256": githubSignature(secret, body) });
    expect(served.status).toBe(202);
  });

  it("a repeated X-GitHub-Delivery or Idempotency-Key answers 202 with the first run's id and starts nothing", async () => {
    const { alice, port } = await start();
    const body = JSON.stringify({ alert: "once" });
    const headers = { "x-hub-signature-256": githubSignature(secret, body), "x-github-delivery": "d-1" };
    const first = await post(port, "/triggers/alerts", body, headers);
    await t?.world.idle();
    const again = await post(port, "/triggers/alerts", body, headers);
    await t?.world.idle();
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.json().run).toBe(first.json().run);

    const keyed = { authorization: `Bearer ${secret}`, "idempotency-key": "k-1" };
    const third = await post(port, "/triggers/alerts", JSON.stringify({ alert: "keyed" }), keyed);
    const fourth = await post(port, "/triggers/alerts", JSON.stringify({ alert: "changed" }), keyed);
    await t?.world.idle();
    expect(fourth.json().run).toBe(third.json().run);
    expect(alice.requests).toHaveLength(2);
    expect(t?.botTexts()).toEqual(["⚡ alerts", "alice: triaged: once", "⚡ alerts", "alice: triaged: keyed"]);
    expect(await t?.world.store.listAutonomousRuns({ source: "trigger", name: "alerts" })).toHaveLength(2);
  });

  it("cuts a body longer than 16 KiB in the prompt and says so", async () => {
    const { alice, port } = await start();
    const body = JSON.stringify({ alert: "big", log: "x".repeat(40_000) });
    const answer = await post(port, "/triggers/alerts", body, { authorization: `Bearer ${secret}` });
    expect(answer.status).toBe(202);
    await t?.world.idle();
    const prompt = alice.requests[0]?.messages.at(-1)?.text ?? "";
    expect(prompt).toContain('"alert": "big"');
    expect(prompt).toMatch(/\[cut: the body is \d+ bytes; only the first 16384 are shown\]$/);
    expect(prompt.length).toBeLessThan(17_000);
    expect(t?.botTexts()).toEqual(["⚡ alerts", "alice: triaged: big"]);
  });

  it("a triggered tool call: its card is refused to a person not listed and approved by a listed approver; requester matches nobody", async () => {
    const { alice, port } = await start({ approvers: { telegram: ["requester", String(boss.id)] } });
    const answer = await post(port, "/triggers/alerts", JSON.stringify({ alert: "run-echo" }), {
      authorization: `Bearer ${secret}`,
    });
    expect(answer.status).toBe(202);
    await t?.world.idle();
    const cards = t?.botMessages().filter((message) => message.reply_markup !== undefined) ?? [];
    expect(cards).toHaveLength(1);
    const card = cards[0] as StoredMessage;
    expect(card.text).toContain("alice wants to run shell_cmd");
    const once = (card.reply_markup as Keyboard).inline_keyboard
      .flat()
      .find((button) => /Approve once/.test(button.text));
    const refused = await t?.press(eve, card.message_id, once?.callback_data ?? "");
    expect(t?.fake.callbackAnswers.get(refused ?? "")).toMatchObject({ show_alert: true });
    expect(alice.requests).toHaveLength(1);
    const decided = await t?.press(boss, card.message_id, once?.callback_data ?? "");
    expect(t?.fake.callbackAnswers.get(decided ?? "")).toEqual({ text: "Approved once.", show_alert: false });
    expect(alice.requests).toHaveLength(2);
    expect(t?.botTexts().at(-1)).toMatch(/^alice: ran it: exit code: 0 .*hello/);
  });

  it("with only requester as approver nobody may decide a triggered card (not even someone who talked in the chat); it expires as every card does", async () => {
    const { alice, port } = await start({ approvers: { telegram: ["requester"] }, approvalTimeout: "1s" });
    await t?.say(eve, "hello everyone");
    const answer = await post(port, "/triggers/alerts", JSON.stringify({ alert: "run-echo" }), {
      authorization: `Bearer ${secret}`,
    });
    expect(answer.status).toBe(202);
    await t?.world.idle();
    const card = t?.botMessages().find((message) => message.reply_markup !== undefined);
    if (!card) throw new Error("no card");
    const once = (card.reply_markup as Keyboard).inline_keyboard
      .flat()
      .find((button) => /Approve once/.test(button.text));
    const refused = await t?.press(eve, card.message_id, once?.callback_data ?? "");
    expect(t?.fake.callbackAnswers.get(refused ?? "")).toMatchObject({ show_alert: true });
    await t?.world.waitFor(
      async () => (await t?.world.store.listApprovals({ chatKey: groupKey }))?.[0]?.state === "expired",
    );
    await t?.world.idle();
    expect(alice.requests).toHaveLength(2);
    expect(alice.requests[1]?.messages.at(-1)?.text).toMatch(/^expired/);
  });
});
