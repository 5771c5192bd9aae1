import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { TelegramAdapter } from "../../channels/telegram/adapter.js";
import { webhookSecretFor } from "../../channels/telegram/verify.js";
import { ana, groupId, type Harness, harness, logsMatching, mainToken } from "./helpers.js";

/** The service's HTTP server, reduced to what a channel's webhook routes need. */
async function serviceServer(adapter: () => TelegramAdapter): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const route = adapter()
      .webhookRoutes()
      .find((each) => each.path === path);
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    void route.handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("telegram webhook", () => {
  let h: Harness;
  let server: Server;
  let origin: string;
  let adapter: TelegramAdapter;

  async function setUp(webhookPath = "/telegram/webhook", webhookSecret?: string): Promise<void> {
    h = await harness();
    ({ server, origin } = await serviceServer(() => adapter));
    adapter = h.makeAdapter({ webhookUrl: `${origin}${webhookPath}`, ...(webhookSecret ? { webhookSecret } : {}) });
    await adapter.start(h.sink);
  }

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await h.close();
  });

  it("sets the webhook with a secret token and serves /telegram/webhook instead of polling", async () => {
    await setUp("", "s3cret-token_1");
    expect(adapter.webhookRoutes().map((route) => route.path)).toEqual(["/telegram/webhook"]);
    const setWebhook = h.fake.callsTo("setWebhook", mainToken);
    expect(setWebhook).toHaveLength(1);
    expect(setWebhook[0]?.params).toMatchObject({
      url: `${origin}/telegram/webhook`,
      secret_token: "s3cret-token_1",
      allowed_updates: ["message", "callback_query"],
    });
    expect(h.fake.callsTo("getUpdates")).toHaveLength(0);
    expect(adapter.isConnected()).toBe(true);
    // A polling adapter has no routes.
    expect(h.adapter.webhookRoutes()).toEqual([]);
  });

  it("accepts an update with the right secret and hands it to the sink", async () => {
    await setUp();
    const { update } = h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "via webhook" });
    const response = await h.fake.deliverWebhook(mainToken, update);
    expect(response.status).toBe(200);
    expect(h.sink.messages.map((message) => message.text)).toEqual(["via webhook"]);
    expect(h.fake.webhookOf(mainToken)?.secret_token).toMatch(/^[A-Za-z0-9_-]{1,256}$/);
  });

  it("refuses a wrong secret with 401 and logs it; the sink sees nothing", async () => {
    await setUp();
    const { update } = h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "forged" });
    const response = await h.fake.deliverWebhook(mainToken, update, "not-the-secret");
    expect(response.status).toBe(401);
    expect(h.sink.messages).toHaveLength(0);
    const refused = logsMatching(h.lines, /telegram webhook refused: wrong secret token/);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.reason).toBe("wrong");
  });

  it("refuses a missing secret with 401 and logs it", async () => {
    await setUp();
    const { update } = h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "unsigned" });
    const response = await h.fake.deliverWebhook(mainToken, update, null);
    expect(response.status).toBe(401);
    expect(h.sink.messages).toHaveLength(0);
    expect(logsMatching(h.lines, /telegram webhook refused: missing secret token/)).toHaveLength(1);
  });

  it("answers 500 when the world cannot take the update, so Telegram delivers it again", async () => {
    await setUp();
    h.sink.failNextMessages = 1;
    const { update } = h.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "again" });
    expect((await h.fake.deliverWebhook(mainToken, update)).status).toBe(500);
    expect((await h.fake.deliverWebhook(mainToken, update)).status).toBe(200);
    expect(h.sink.accepted.map((message) => message.text)).toEqual(["again"]);
  });

  it("refuses a body that is not JSON with 400, and a malformed update is answered 200 and skipped", async () => {
    await setUp();
    const secret = h.fake.webhookOf(mainToken)?.secret_token ?? "";
    const url = `${origin}/telegram/webhook`;
    const headers = { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret };
    expect((await fetch(url, { method: "POST", headers, body: "{not json" })).status).toBe(400);
    const malformed = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ update_id: 5, message: { text: "x" } }),
    });
    expect(malformed.status).toBe(200);
    expect(logsMatching(h.lines, /malformed telegram update skipped/)).toHaveLength(1);
    expect(h.sink.messages).toHaveLength(0);
  });
});

describe("telegram webhook secret", () => {
  it("refuses a configured secret Telegram would not accept, and derives a stable one otherwise", () => {
    expect(() => webhookSecretFor("1:x", "has spaces!")).toThrow(/A–Z, a–z, 0–9, _ and -/);
    expect(webhookSecretFor("1:x")).toMatch(/^[a-f0-9]{64}$/);
    expect(webhookSecretFor("1:x")).toBe(webhookSecretFor("1:x"));
    expect(webhookSecretFor("1:x")).not.toBe(webhookSecretFor("2:y"));
  });
});
