import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebAdapter } from "../../channels/web/adapter.js";
import { webChat } from "../../channels/web/parse.js";
import type { WebEvent, WebItem } from "../../channels/web/web-items.js";
import { chatKey } from "../../src/world/chat-ref.js";
import { capturedLogger } from "../tools/captured-logger.js";
import { EventReader } from "../web/web-service.js";
import { type ChannelFixture, runChannelContract, type ShownMessage } from "./channel-contract.js";
import type { ContractSink } from "./contract-sink.js";

/** What a page shows for an item: a message's text, a card's request or outcome and its buttons. */
function shown(item: WebItem): ShownMessage {
  switch (item.kind) {
    case "message":
    case "draft":
      return { id: item.id, text: item.text, buttons: 0 };
    case "card": {
      const { card } = item;
      const pending = card.state === "pending";
      const outcome = pending ? "" : ` — ${card.state}${card.decidedBy === undefined ? "" : ` by ${card.decidedBy}`}`;
      return {
        id: item.id,
        text: `${card.agent} wants to run ${card.tool} ${card.argumentsJson}${outcome}`,
        buttons: pending ? 3 : 0,
      };
    }
  }
}

/**
 * The web console: the real adapter's routes on a local HTTP server; "the platform" is a page,
 * read through the same Server-Sent Events stream the browser reads, and requests made as the
 * page makes them (same-origin JSON POSTs).
 */
async function startWeb(sink: ContractSink): Promise<ChannelFixture> {
  const adapter = new WebAdapter({
    worlds: [{ name: "main", agents: [{ name: "alice", displayName: "Alice" }] }],
    agents: [{ name: "alice", displayName: "Alice" }],
    logger: capturedLogger().logger,
    token: "contract-shared-token",
    users: { ana: "ana-contract-token" },
  });
  const routes = adapter.webhookRoutes();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const route = routes.find((each) => each.path === path);
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    void route.handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await adapter.start(sink);
  const chat = webChat("main");
  // The page is ana's browser, logged in with her own token.
  const login = await fetch(`${origin}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
    body: "token=ana-contract-token",
    redirect: "manual",
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = new EventReader();
  await page.open(`${origin}/chat/events?world=main`, { cookie });
  let markers = 0;

  /** Everything published so far has reached the page: a marker sent after it has arrived. */
  const settled = async (): Promise<WebEvent[]> => {
    markers += 1;
    const marker = `marker-${markers}`;
    adapter.hub.publish(chatKey(chat), { type: "removed", id: marker });
    const started = Date.now();
    while (!(page.events as WebEvent[]).some((event) => event.type === "removed" && event.id === marker)) {
      if (Date.now() - started > 5_000) throw new Error("the page did not get the events in time");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return page.events as WebEvent[];
  };
  const post = (path: string, body: unknown) =>
    fetch(`${origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "sec-fetch-site": "same-origin", cookie },
      body: JSON.stringify(body),
    });
  let sequence = 0;

  return {
    adapter,
    chat,
    person: { id: "ana", name: "ana" },
    async deliverMessage(text) {
      sequence += 1;
      const clientId = `contract-message-${sequence}`;
      const body = { world: "main", name: "ana", text, clientId };
      const response = await post("/chat/messages", body);
      if (response.status >= 300) throw new Error(`the page's message was answered ${response.status}`);
      return { platformMessageId: clientId, raw: body };
    },
    async redeliver(delivered) {
      await post("/chat/messages", delivered.raw);
    },
    async deliverClick(_sent, card, choice) {
      const response = await post("/chat/approvals", {
        world: "main",
        name: "ana",
        approvalId: card.approvalId,
        choice,
      });
      const answer = (await response.json()) as { text?: string };
      return answer.text === undefined ? {} : { privateText: answer.text };
    },
    async deliverBadSignature() {
      // The web has no signatures: what it refuses is a request another site's page makes.
      const response = await fetch(`${origin}/chat/messages`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "sec-fetch-site": "cross-site",
          origin: "http://evil.example",
          cookie,
        },
        body: JSON.stringify({ world: "main", name: "ana", text: "forged", clientId: "forged-0001" }),
      });
      return response.status;
    },
    async shownMessages() {
      const timeline: WebItem[] = [];
      for (const event of await settled()) {
        if (event.type === "snapshot") timeline.splice(0, timeline.length, ...event.items);
        else if (event.type === "removed") {
          const index = timeline.findIndex((item) => item.id === event.id);
          if (index >= 0) timeline.splice(index, 1);
        } else if (event.type === "item") {
          const index = timeline.findIndex((item) => item.id === event.item.id);
          if (index >= 0) timeline[index] = event.item;
          else timeline.push(event.item);
        }
      }
      return timeline.map(shown);
    },
    async close() {
      await page.close();
      await adapter.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

runChannelContract({ name: "web", maxMessageLength: Number.POSITIVE_INFINITY, start: startWeb });
