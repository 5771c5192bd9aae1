import type { IncomingMessage, ServerResponse } from "node:http";
import type { App, Receiver } from "@slack/bolt";
import type { Logger } from "../../src/log/logger.js";
import type { WebhookRoute } from "../../src/world/channel-adapter.js";
import { readBody, reply } from "../kit/http-text.js";
import { ackAfterStoring } from "./ack-after-storing.js";
import { checkSlackSignatureHeaders, verifySlackSignature } from "./verify.js";

/** Where Slack's events and interactivity arrive on the service's port. */
const slackEventsPath = "/slack/events";

export interface HttpReceiverSetup {
  signingSecret: string;
  logger: Logger;
  /** Seconds since the epoch (tests move it to check the timestamp window). */
  nowSeconds?: () => number;
  /** False until the adapter has started. */
  isReady(): boolean;
  /** Keeps the work that runs after the ack, so that stopping waits for it. */
  track(work: Promise<unknown>): void;
}

/** A JSON event body, or a form: `payload=<json>` (interactivity) or a slash command's fields. */
function parseBody(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes("application/x-www-form-urlencoded")) {
    const form = new URLSearchParams(raw);
    const payload = form.get("payload");
    if (payload !== null) return JSON.parse(payload) as Record<string, unknown>;
    return Object.fromEntries(form);
  }
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new SyntaxError("body is not an object");
  return parsed as Record<string, unknown>;
}

/**
 * Bolt's receiver for HTTP events served on the service's one port (the webhook route
 * `/slack/events`): transport only. Checks the signature (401 and a log line otherwise),
 * answers Slack's URL check and hands the body to Bolt; Slack is answered as
 * `ackAfterStoring` says, and what runs after the answer is tracked by the adapter.
 */
export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;

  constructor(private readonly setup: HttpReceiverSetup) {}

  init(app: App): void {
    this.app = app;
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  route(): WebhookRoute {
    return {
      path: slackEventsPath,
      // The body is read only for a request whose signature headers could be Slack's.
      refuseEarly: (request) => {
        if (request.method !== "POST") return undefined;
        const check = checkSlackSignatureHeaders(request.headers, this.setup.nowSeconds?.());
        if (check.ok) return undefined;
        // The same line as a refusal after the body (operators and tests key on it).
        this.setup.logger.warn(
          { reason: check.reason, remoteAddress: request.socket.remoteAddress },
          `slack request refused: ${check.reason}`,
        );
        return { status: 401, reason: `slack request refused: ${check.reason}` };
      },
      handle: (request, response) => this.handle(request, response),
    };
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { logger } = this.setup;
    if (request.method !== "POST") {
      request.resume();
      reply(response, 405, "method not allowed");
      return;
    }
    const raw = await readBody(request);
    const now = this.setup.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
    const check = verifySlackSignature(request.headers, raw, this.setup.signingSecret, now);
    if (!check.ok) {
      logger.warn(
        { reason: check.reason, remoteAddress: request.socket.remoteAddress },
        `slack request refused: ${check.reason}`,
      );
      reply(response, 401, "unauthorized");
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = parseBody(raw, String(request.headers["content-type"] ?? ""));
    } catch (error) {
      logger.warn({ err: error }, "slack request refused: the body is neither JSON nor a form with a JSON payload");
      reply(response, 400, "bad request");
      return;
    }
    if (body.ssl_check !== undefined) {
      reply(response, 200, "");
      return;
    }
    if (body.type === "url_verification") {
      reply(response, 200, JSON.stringify({ challenge: body.challenge }), "application/json");
      return;
    }
    const app = this.app;
    if (!app || !this.setup.isReady()) {
      reply(response, 503, "not ready");
      return;
    }
    const retryNum = Number(request.headers["x-slack-retry-num"] ?? Number.NaN);
    const retryReason = request.headers["x-slack-retry-reason"];
    await new Promise<void>((answered) => {
      const delivery = {
        body,
        isEvent: body.type === "event_callback",
        retryNum: Number.isNaN(retryNum) ? undefined : retryNum,
        retryReason: typeof retryReason === "string" ? retryReason : undefined,
      };
      const work = ackAfterStoring(app, delivery, {
        ack: async (answer) => {
          if (answer === undefined || answer === "") reply(response, 200, "");
          else if (typeof answer === "string") reply(response, 200, answer);
          else reply(response, 200, JSON.stringify(answer), "application/json");
          answered();
        },
        late: () => logger.warn({ type: body.type }, "slack request not acknowledged in time; answering 200 anyway"),
        refuse: () => {
          logger.warn(
            { type: body.type },
            "slack event not stored in time (the database away or slow); answering 503 so that Slack sends it again",
          );
          reply(response, 503, "not stored yet");
          answered();
        },
        failed: (error, acknowledged) => {
          logger.error({ err: error }, "slack event handling failed");
          if (!acknowledged) reply(response, 500, "not handled");
          answered();
        },
      });
      this.setup.track(work);
    });
  }
}
