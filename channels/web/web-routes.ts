import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../src/log/logger.js";
import type { WebhookRoute } from "../../src/world/channel-adapter.js";
import { chatKey } from "../../src/world/chat-ref.js";
import type { InboundSink } from "../../src/world/inbound.js";
import { type ChatPageWorld, renderChatPage } from "./chat-page.js";
import type { EventHub } from "./event-hub.js";
import { guardRoute, type GuardedRoute } from "./guard.js";
import { queryParameter, readBody, send, sendHtml, sendJson, sendText } from "./http-io.js";
import { loginRoute } from "./login-route.js";
import { renderOperatorPage } from "./operator-page.js";
import type { OperatorSource } from "./operator-snapshot.js";
import {
  approveBodySchema,
  commandBodySchema,
  parseBody,
  sendBodySchema,
  toApprovalClick,
  toInboundCommand,
  toInboundMessage,
  webChat,
} from "./parse.js";
import type { WebHistorySource, WebItem } from "./web-items.js";
import type { z } from "zod";

/** What the routes need from the adapter. */
export interface WebConsole {
  readonly options: {
    worlds: ChatPageWorld[];
    token?: string;
    logger: Logger;
    history?: WebHistorySource;
    operator?: OperatorSource;
  };
  readonly hub: EventHub;
  inbound(): InboundSink | undefined;
  noteReceived(at: Date): void;
  publish(chat: ReturnType<typeof webChat>, item: WebItem): void;
}

const assetTypes = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" } as const;
const assets = (["console.js", "console.css", "operator.js"] as const).map((name) => ({
  path: `/assets/${name}`,
  body: readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8"),
  type: assetTypes[name.endsWith(".css") ? "css" : "js"],
}));

/** Every path of the web console, each behind the guard. */
export function createWebRoutes(web: WebConsole): WebhookRoute[] {
  const { logger, token, worlds } = web.options;
  const worldNamed = (name: string | undefined) => worlds.find((world) => world.name === (name ?? worlds[0]?.name));
  const names = worlds.map((world) => world.name);

  const chatPage = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const asked = queryParameter(request, "world");
    const world = worldNamed(asked);
    if (!world) {
      sendText(response, 404, `no world named "${asked ?? ""}" (worlds: ${names.join(", ") || "none"})`);
      return;
    }
    sendHtml(response, 200, renderChatPage(world, names));
  };

  /**
   * A state-changing request: the body checked against its schema, the world and the running
   * channels looked up; each refusal answered with a clear status and a log line.
   */
  const acceptPost = async <T extends { world: string }>(
    request: IncomingMessage,
    response: ServerResponse,
    schema: z.ZodType<T>,
    what: string,
    act: (body: T, sink: InboundSink) => Promise<void>,
  ): Promise<void> => {
    const parsed = parseBody(schema, await readBody(request));
    if (!parsed.ok) {
      logger.warn({ problem: parsed.problem }, `web console: ${what} refused`);
      sendJson(response, 400, { error: parsed.problem });
      return;
    }
    if (!worldNamed(parsed.value.world)) {
      logger.warn({ world: parsed.value.world }, `web console: ${what} for an unknown world refused`);
      sendJson(response, 404, { error: `no world named "${parsed.value.world}"` });
      return;
    }
    const sink = web.inbound();
    if (!sink) {
      sendJson(response, 503, { error: "the service is not running its channels yet" });
      return;
    }
    await act(parsed.value, sink);
  };

  const routes: GuardedRoute[] = [
    { path: "/", kind: "page", methods: ["GET"], handle: chatPage },
    { path: "/chat", kind: "page", methods: ["GET"], handle: chatPage },
    {
      path: "/chat/events",
      kind: "api",
      methods: ["GET"],
      async handle(request, response) {
        const asked = queryParameter(request, "world");
        const world = worldNamed(asked);
        if (!world) {
          sendText(response, 404, `no world named "${asked ?? ""}"`);
          return;
        }
        const key = chatKey(webChat(world.name));
        const name = queryParameter(request, "name")?.trim();
        await web.hub.open(
          key,
          response,
          async () => (await web.options.history?.history(key)) ?? [],
          name === undefined || name === "" ? undefined : name,
        );
      },
    },
    {
      path: "/chat/messages",
      kind: "api",
      methods: ["POST"],
      handle: (request, response) =>
        acceptPost(request, response, sendBodySchema, "message", async (body, sink) => {
          if (body.text.trim() === "") {
            logger.warn("web console: empty message refused");
            sendJson(response, 400, { error: "text: the message is empty" });
            return;
          }
          const receivedAt = new Date();
          web.noteReceived(receivedAt);
          const result = await sink.message(toInboundMessage(body, receivedAt));
          if (result.status === "accepted") {
            web.publish(webChat(body.world), {
              kind: "message",
              id: result.messageId,
              author: { kind: "human", name: body.name, displayName: body.name },
              text: body.text,
              at: receivedAt.toISOString(),
            });
          }
          sendJson(response, result.status === "accepted" ? 202 : 200, result);
        }),
    },
    {
      path: "/chat/approvals",
      kind: "api",
      methods: ["POST"],
      handle: (request, response) =>
        acceptPost(request, response, approveBodySchema, "approval click", async (body, sink) => {
          sendJson(response, 200, await sink.click(toApprovalClick(body)));
        }),
    },
    {
      path: "/chat/commands",
      kind: "api",
      methods: ["POST"],
      handle: (request, response) =>
        acceptPost(request, response, commandBodySchema, "command", async (body, sink) => {
          sendJson(response, 200, await sink.command(toInboundCommand(body)));
        }),
    },
    {
      path: "/operator",
      kind: "page",
      methods: ["GET"],
      async handle(request, response) {
        const source = web.options.operator;
        if (!source) {
          sendText(response, 503, "the operator view is not available in this process");
          return;
        }
        const snapshot = await source.snapshot();
        if (queryParameter(request, "format") === "json") sendJson(response, 200, snapshot);
        else sendHtml(response, 200, renderOperatorPage(snapshot));
      },
    },
    loginRoute(token, logger),
    ...assets.map(
      (asset): GuardedRoute => ({
        path: asset.path,
        kind: "open",
        methods: ["GET"],
        async handle(_request, response) {
          send(response, 200, asset.body, asset.type);
        },
      }),
    ),
  ];
  return routes.map((route) => guardRoute(route, token, logger));
}
