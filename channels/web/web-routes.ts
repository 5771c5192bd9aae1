import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../src/log/logger.js";
import { chatKey, type InboundMessage, type InboundSink, type WebhookRoute } from "../../src/world/channel-adapter.js";
import { type ChatPageWorld, renderChatPage } from "./chat-page.js";
import { type WebFileSource, webFileRoute } from "./file-route.js";
import type { EventHub } from "./event-hub.js";
import type { AccessDecision, WebAuth } from "./access.js";
import { guardRoute, type GuardedRoute } from "./guard.js";
import { readBody } from "../kit/http-text.js";
import { queryParameter, send, sendHtml, sendJson, sendText } from "./http-io.js";
import { loginRoute, logoutRoute } from "./login-route.js";
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
  toInboundUpload,
  uploadBodySchema,
  webChat,
} from "./parse.js";
import { UploadAllowance } from "./upload-allowance.js";
import type { WebHistorySource, WebItem } from "./web-items.js";
import type { z } from "zod";

/** What the routes need from the adapter. */
export interface WebConsole {
  readonly options: {
    worlds: ChatPageWorld[];
    logger: Logger;
    history?: WebHistorySource;
    operator?: OperatorSource;
    /** Who of `channels.web.users` may open `/operator` (absent: every login). */
    operators?: { everyone: boolean; names: ReadonlySet<string> };
    /** `files.maxMessageBytes`: what one upload may carry (its route's body cap follows). */
    maxUploadBytes?: number;
    /** Where `GET /chat/file` reads a message's file. */
    files?: WebFileSource;
    /** How long one upload's body may take (default `uploadTimeoutMs`, 2 minutes). */
    uploadTimeoutMs?: number;
  };
  readonly hub: EventHub;
  readonly auth: WebAuth;
  inbound(): InboundSink | undefined;
  noteReceived(at: Date): void;
  publish(chat: ReturnType<typeof webChat>, item: WebItem): void;
}

/** `files.maxMessageBytes`'s default. */
const defaultMaxUploadBytes = 50 * 1024 * 1024;

/**
 * The upload route's body cap: the files' bytes in base64 (4 per 3) and room for the rest
 * (the text, names, JSON). A bigger file is refused whole (413); a file over `files.maxBytes`
 * inside it is refused by the world with one line, as on every platform.
 */
function uploadBodyBytes(maxUploadBytes: number): number {
  return Math.ceil((maxUploadBytes * 4) / 3) + 256 * 1024;
}

const assetTypes = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" } as const;
const assets = (["console.js", "console.css", "operator.js", "login.js"] as const).map((name) => ({
  path: `/assets/${name}`,
  body: readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8"),
  type: assetTypes[name.endsWith(".css") ? "css" : "js"],
}));

/** Every path of the web console, each behind the guard. */
export function createWebRoutes(web: WebConsole): WebhookRoute[] {
  const { logger, worlds } = web.options;
  const { credentials } = web.auth;

  /**
   * Who a request acts as: the person of its login; a shared-token holder's typed name is a
   * label (or `operator` once `channels.web.users` names people). Never a name the page chose
   * over a login.
   */
  const actingName = (access: AccessDecision, typed: string | undefined): string | undefined =>
    access.outcome === "allowed" ? credentials.actingName(access.login, typed) : undefined;
  const worldNamed = (name: string | undefined) => worlds.find((world) => world.name === (name ?? worlds[0]?.name));
  const names = worlds.map((world) => world.name);
  const uploadBytes = uploadBodyBytes(web.options.maxUploadBytes ?? defaultMaxUploadBytes);
  const uploads = new UploadAllowance(uploadBytes, 2 * uploadBytes, web.options.uploadTimeoutMs);

  const chatPage = async (
    request: IncomingMessage,
    response: ServerResponse,
    access: AccessDecision,
  ): Promise<void> => {
    const asked = queryParameter(request, "world");
    const world = worldNamed(asked);
    if (!world) {
      sendText(response, 404, `no world named "${asked ?? ""}" (worlds: ${names.join(", ") || "none"})`);
      return;
    }
    const fixedName = access.outcome === "allowed" ? credentials.fixedName(access.login) : undefined;
    sendHtml(response, 200, renderChatPage(world, names, fixedName));
  };

  /**
   * A state-changing request: the body checked against its schema, the world and the running
   * channels looked up; each refusal answered with a clear status and a log line.
   */
  const acceptPost = async <T extends { world: string; name?: string | undefined }>(
    request: IncomingMessage,
    response: ServerResponse,
    access: AccessDecision,
    schema: z.ZodType<T>,
    what: string,
    act: (body: T, name: string, sink: InboundSink) => Promise<void>,
  ): Promise<void> => {
    const parsed = parseBody(schema, await readBody(request));
    if (!parsed.ok) {
      logger.warn({ problem: parsed.problem }, `web console: ${what} refused`);
      sendJson(response, 400, { error: parsed.problem });
      return;
    }
    const name = actingName(access, parsed.value.name);
    if (name === undefined) {
      logger.warn(`web console: ${what} without a name refused`);
      sendJson(response, 400, { error: "name: give the name to show (the shared token's holders label themselves)" });
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
    await act(parsed.value, name, sink);
  };

  /** A message (with files or not) handed to the world; the page sees it at once when it was taken. */
  const takeMessage = async (
    response: ServerResponse,
    sink: InboundSink,
    body: { world: string; text: string },
    name: string,
    inbound: (receivedAt: Date) => InboundMessage,
    fileNames?: string,
  ): Promise<void> => {
    const receivedAt = new Date();
    web.noteReceived(receivedAt);
    const result = await sink.message(inbound(receivedAt));
    if (result.status === "accepted") {
      const files = fileNames === undefined ? "" : `${body.text === "" ? "" : "\n"}[files: ${fileNames}]`;
      web.publish(webChat(body.world), {
        kind: "message",
        id: result.messageId,
        author: { kind: "human", name, displayName: name },
        text: `${body.text}${files}`,
        at: receivedAt.toISOString(),
      });
    }
    sendJson(response, result.status === "accepted" ? 202 : 200, result);
  };

  const routes: GuardedRoute[] = [
    { path: "/", kind: "page", methods: ["GET"], handle: chatPage },
    { path: "/chat", kind: "page", methods: ["GET"], handle: chatPage },
    {
      path: "/chat/events",
      kind: "api",
      methods: ["GET"],
      async handle(request, response, access) {
        const asked = queryParameter(request, "world");
        const world = worldNamed(asked);
        if (!world) {
          sendText(response, 404, `no world named "${asked ?? ""}"`);
          return;
        }
        const key = chatKey(webChat(world.name));
        const typed = queryParameter(request, "name")?.trim();
        // Private replies reach the pages opened under the acting name (the login's person).
        const name = actingName(access, typed === "" ? undefined : typed);
        await web.hub.open(key, response, async () => (await web.options.history?.history(key)) ?? [], name);
      },
    },
    {
      path: "/chat/messages",
      kind: "api",
      methods: ["POST"],
      handle: (request, response, access) =>
        acceptPost(request, response, access, sendBodySchema, "message", async (body, name, sink) => {
          if (body.text.trim() === "") {
            logger.warn("web console: empty message refused");
            sendJson(response, 400, { error: "text: the message is empty" });
            return;
          }
          await takeMessage(response, sink, body, name, (at) => toInboundMessage(body, name, at));
        }),
    },
    {
      // A message with files: their bytes come in the body (base64), so this route has its own cap.
      path: "/chat/uploads",
      kind: "api",
      methods: ["POST"],
      maxBodyBytes: uploadBytes,
      // Read only after the login was checked, as a stream: a time limit and a per-client cap.
      bodyLimits: (request) =>
        uploads.limitsFor(
          web.auth.proxies.originOf({ remoteAddress: request.socket.remoteAddress, headers: request.headers }).address,
        ),
      handle: (request, response, access) =>
        acceptPost(request, response, access, uploadBodySchema, "upload", async (body, name, sink) => {
          const names = body.files.map((file) => file.name).join(", ");
          await takeMessage(response, sink, body, name, (at) => toInboundUpload(body, name, at), names);
        }),
    },
    {
      path: "/chat/approvals",
      kind: "api",
      methods: ["POST"],
      handle: (request, response, access) =>
        acceptPost(request, response, access, approveBodySchema, "approval click", async (body, name, sink) => {
          sendJson(response, 200, await sink.click(toApprovalClick(body, name)));
        }),
    },
    {
      path: "/chat/commands",
      kind: "api",
      methods: ["POST"],
      handle: (request, response, access) =>
        acceptPost(request, response, access, commandBodySchema, "command", async (body, name, sink) => {
          sendJson(response, 200, await sink.command(toInboundCommand(body, name)));
        }),
    },
    {
      path: "/operator",
      kind: "page",
      methods: ["GET"],
      async handle(request, response, access) {
        const operators = web.options.operators;
        const person = access.outcome === "allowed" && access.login.kind === "person" ? access.login.name : undefined;
        if (operators !== undefined && person !== undefined && !operators.everyone && !operators.names.has(person)) {
          logger.warn({ person }, "web console: the operator view refused to a person who is no approver");
          sendText(
            response,
            403,
            "forbidden: the operator view is for the people listed under approvers.web (and the shared token's holders)",
          );
          return;
        }
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
    // A message's file (a tool's image, an upload) for a logged-in page; 401 without a login.
    ...(web.options.files === undefined ? [] : [webFileRoute(web.options.files, names)]),
    loginRoute(web.auth, logger),
    logoutRoute(web.auth, logger),
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
  return routes.map((route) => guardRoute(route, web.auth, logger));
}
