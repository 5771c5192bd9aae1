import type { App, Receiver, Logger as SlackLogger } from "@slack/bolt";
import { SocketModeClient } from "@slack/socket-mode";
import type { Logger } from "../../src/log/logger.js";
import { ackAfterStoring } from "./ack-after-storing.js";

export interface SocketReceiverSetup {
  appToken: string;
  logger: Logger;
  /** The service's logger as Bolt and the Socket Mode client want it. */
  slackLogger: SlackLogger;
  /** Options for the Web API client that opens the connection (`apps.connections.open`). */
  clientOptions: NonNullable<ConstructorParameters<typeof SocketModeClient>[0]>["clientOptions"];
  /** Keeps the handling of each envelope, so that stopping waits for it. */
  track(work: Promise<unknown>): void;
}

/** What the Socket Mode client hands over for each envelope. */
interface SocketEnvelope {
  ack(payload?: unknown): Promise<void>;
  envelope_id?: string;
  type?: string;
  body?: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
}

/**
 * Bolt's receiver for Socket Mode: transport only, like `SlackHttpReceiver`. Bolt's own
 * `SocketModeReceiver` acks an event envelope before the listeners run; here envelopes are
 * acknowledged as `ackAfterStoring` says (an event once the world has stored it).
 */
export class SlackSocketReceiver implements Receiver {
  readonly client: SocketModeClient;
  private app: App | undefined;

  constructor(private readonly setup: SocketReceiverSetup) {
    this.client = new SocketModeClient({
      appToken: setup.appToken,
      logger: setup.slackLogger,
      ...(setup.clientOptions ? { clientOptions: setup.clientOptions } : {}),
    });
    this.client.on("slack_event", (envelope: SocketEnvelope) => this.take(envelope));
  }

  init(app: App): void {
    this.app = app;
  }

  start(): Promise<unknown> {
    return this.client.start();
  }

  async stop(): Promise<void> {
    // Not awaited, as Bolt's receiver does: the client resolves it only on a "disconnected"
    // state, which a connection that never opened may not reach.
    void this.client.disconnect();
  }

  private take(envelope: SocketEnvelope): void {
    const { logger } = this.setup;
    const app = this.app;
    const body = envelope.body;
    const where = { envelopeId: envelope.envelope_id, type: envelope.type };
    if (!app || body === undefined || typeof body !== "object" || body === null) {
      logger.warn(
        where,
        "slack socket envelope without a payload or before Bolt is ready; left for Slack to send again",
      );
      return;
    }
    const delivery = {
      body,
      isEvent: envelope.type === "events_api",
      retryNum: envelope.retry_num,
      retryReason: envelope.retry_reason,
    };
    const work = ackAfterStoring(app, delivery, {
      ack: async (payload) => {
        try {
          await envelope.ack(payload);
        } catch (error) {
          logger.warn(
            { ...where, err: error },
            "slack socket envelope could not be acknowledged; Slack sends it again",
          );
        }
      },
      late: () => logger.warn(where, "slack socket envelope not acknowledged in time; acknowledging it anyway"),
      refuse: () =>
        logger.warn(
          where,
          "slack event not stored in time (the database away or slow); left unacknowledged so that Slack sends it again",
        ),
      failed: (error, acknowledged) =>
        logger.error(
          { ...where, err: error },
          acknowledged ? "slack event handling failed" : "slack event handling failed; left for Slack to send again",
        ),
    });
    this.setup.track(work);
  }
}
