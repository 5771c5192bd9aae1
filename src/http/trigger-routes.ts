/**
 * `POST /triggers/<name>` (docs/schedules-and-triggers.md): a signed request gives a trigger's
 * agent a turn in its chat. The body is signed as GitHub signs webhooks (`X-Hub-Signature-256:
 * sha256=<hex HMAC-SHA256 of the raw body>`) or the request carries `Authorization: Bearer
 * <secret>`; both are compared in constant time. A repeated delivery id (`Idempotency-Key`,
 * `X-GitHub-Delivery`) answers with the first run's id and starts nothing. Refusals are logged
 * (never the secret or the body) and store nothing.
 */
import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../log/logger.js";
import { recordAutonomousRun } from "../world/autonomous/autonomous-run.js";
import type { RequestBodyLimits, WebhookRoute } from "../world/channel-adapter.js";
import type { ChatRef } from "../world/chat-ref.js";
import type { WorldContext } from "../world/world-context.js";

/** Bodies above this are refused with 413 while they are read. */
export const maxTriggerBodyBytes = 256 * 1024;
/** How much of the body `{{body}}` gets; the rest is cut, and the prompt says so. */
export const maxBodyInPromptBytes = 16 * 1024;

/** The path prefix of every trigger (an unknown name under it is a logged 404). */
export const triggerPathPrefix = "/triggers/";

/** A trigger as its route serves it (`triggers[]` of the config). */
export interface TriggerSettings {
  name: string;
  world: string;
  chat: ChatRef;
  agent: string;
  secret: string;
  prompt: string;
}

export interface TriggerRouteContext extends Pick<WorldContext, "store" | "queue"> {
  logger: Logger;
  /** The chat as its channel knows it (Slack adds the workspace). */
  resolveChat?: (chat: ChatRef) => ChatRef;
  /**
   * Per-client limits while a body is read (its time limit and the bytes one client may have in
   * flight over all its requests): a signature is checked only once the body is in, so without
   * them a client opening many connections holds many bodies' worth of memory unsigned.
   */
  bodyAllowance?: { limitsFor(address: string): RequestBodyLimits };
}

/** How long a trigger's whole body may take once it is being read. */
export const triggerBodyTimeoutMs = 30_000;

/** What one client (an IPv4 address, an IPv6 /64) may have in flight over all its trigger bodies. */
export const maxTriggerBytesInFlightPerClient = 4 * maxTriggerBodyBytes;

/** One route per configured trigger. */
export function triggerRoutes(triggers: readonly TriggerSettings[], context: TriggerRouteContext): WebhookRoute[] {
  return triggers.map((trigger) => triggerRoute(trigger, context));
}

function triggerRoute(trigger: TriggerSettings, context: TriggerRouteContext): WebhookRoute {
  const log = context.logger.child({ component: "triggers", trigger: trigger.name });
  const refuse = (request: IncomingMessage, status: number, reason: string) => {
    log.warn({ status, reason, remote: request.socket.remoteAddress }, "trigger request refused");
  };
  // Answered by the server before the body is read (and logged there, with the path).
  const early = (status: number, reason: string) => ({ status, reason });
  return {
    path: `${triggerPathPrefix}${trigger.name}`,
    maxBodyBytes: maxTriggerBodyBytes,
    ...(context.bodyAllowance === undefined
      ? {}
      : {
          bodyLimits: (request: IncomingMessage) =>
            context.bodyAllowance?.limitsFor(request.socket.remoteAddress ?? "") ?? { maxBytes: maxTriggerBodyBytes },
        }),
    refuseEarly(request) {
      if (request.method !== "POST") return early(405, "only POST starts a trigger");
      const declared = Number(request.headers["content-length"] ?? 0);
      if (declared > maxTriggerBodyBytes) return early(413, `request body larger than ${maxTriggerBodyBytes} bytes`);
      if (signatureOf(request) !== undefined) return undefined;
      const bearer = bearerOf(request);
      if (bearer === undefined) return early(401, "missing signature (X-Hub-Signature-256 or Authorization: Bearer)");
      if (!sameText(bearer, trigger.secret)) return early(401, "bad bearer secret");
      return undefined;
    },
    async handle(request, response) {
      const body = await readBody(request, maxTriggerBodyBytes);
      if (body === "too-large") {
        refuse(request, 413, `request body larger than ${maxTriggerBodyBytes} bytes`);
        response.setHeader("connection", "close");
        return sendJson(response, 413, { error: `request body larger than ${maxTriggerBodyBytes} bytes` });
      }
      const signature = signatureOf(request);
      if (signature !== undefined) {
        const expected = `sha256=${createHmac("sha256", trigger.secret).update(body).digest("hex")}`;
        if (!sameText(signature, expected)) {
          refuse(request, 401, "bad signature");
          return sendJson(response, 401, { error: "bad signature" });
        }
      }
      const deliveryId = headerOf(request, "idempotency-key") ?? headerOf(request, "x-github-delivery");
      const { runId, created } = await recordAutonomousRun(context, {
        source: "trigger",
        name: trigger.name,
        occurrence: deliveryId === undefined ? `request:${randomUUID()}` : `delivery:${deliveryId}`,
        world: trigger.world,
        agent: trigger.agent,
        chat: context.resolveChat?.(trigger.chat) ?? trigger.chat,
        prompt: triggerPrompt(trigger.prompt, body),
      });
      log.info(
        { runId, bytes: body.length, ...(deliveryId === undefined ? {} : { deliveryId }) },
        created ? "trigger run queued" : "repeated delivery: the first run's id, nothing started",
      );
      sendJson(response, 202, { run: runId });
    },
  };
}

/**
 * The prompt with `{{body}}` replaced by the body: JSON pretty-printed, other text as sent, cut
 * at {@link maxBodyInPromptBytes} with a line saying so.
 */
export function triggerPrompt(template: string, body: Buffer): string {
  const text = body.toString("utf8");
  let shown = text;
  try {
    if (text.trim() !== "") shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON: the text as it came.
  }
  const bytes = Buffer.from(shown, "utf8");
  if (bytes.length > maxBodyInPromptBytes) {
    const head = bytes
      .subarray(0, maxBodyInPromptBytes)
      .toString("utf8")
      .replace(/\uFFFD+$/, "");
    shown = `${head}\n… [cut: the body is ${bytes.length} bytes; only the first ${maxBodyInPromptBytes} are shown]`;
  }
  return template.split("{{body}}").join(shown);
}

/** The body, read up to `maxBytes` (a longer one stops being read: "too-large"). */
async function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | "too-large"> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) return "too-large";
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first.trim() === "" ? undefined : first.trim();
}

function signatureOf(request: IncomingMessage): string | undefined {
  return headerOf(request, "x-hub-signature-256");
}

function bearerOf(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(headerOf(request, "authorization") ?? "");
  return match?.[1]?.trim();
}

/** Equal texts, compared in constant time (their sha256 digests, so the length does not leak either). */
function sameText(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  response.statusCode = status;
  response.setHeader("content-type", "application/json; charset=utf-8");
  response.setHeader("content-length", Buffer.byteLength(text));
  response.end(text);
}
