import type { App, Receiver, Logger as SlackLogger } from "@slack/bolt";
import { SocketModeClient } from "@slack/socket-mode";
import type { Logger } from "../../src/log/logger.js";

/** Slack redelivers an envelope not acknowledged in about 3 s; one nobody acked by then is acked anyway. */
const unackedAnswerMs = 2500;

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
 * `SocketModeReceiver` sends an event envelope's ack the moment Bolt acks it, before the
 * listeners run, so a process killed in between loses the message. Here an event envelope is
 * acknowledged only once Bolt's processing (the world storing the message) is done, other
 * envelopes (button presses, slash commands) when their listener acks, and any envelope after
 * 2.5 s at the latest. An envelope whose processing fails is left unacknowledged, so that Slack
 * delivers it again (with `retry_attempt`; the world dedupes by message id).
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
    let acknowledged = false;
    const acknowledge = async (payload?: unknown): Promise<void> => {
      if (acknowledged) return;
      acknowledged = true;
      clearTimeout(timer);
      try {
        await envelope.ack(payload);
      } catch (error) {
        logger.warn({ ...where, err: error }, "slack socket envelope could not be acknowledged; Slack sends it again");
      }
    };
    const timer = setTimeout(() => {
      logger.warn(where, "slack socket envelope not acknowledged in time; acknowledging it anyway");
      void acknowledge();
    }, unackedAnswerMs);
    // Bolt acks an event before its listeners run; the ack waits for them instead (they resolve
    // once the world has stored the message).
    const isEvent = envelope.type === "events_api";
    const work = app
      .processEvent({
        body,
        ack: async (payload?: unknown) => {
          if (!isEvent) await acknowledge(payload);
        },
        ...(envelope.retry_num === undefined ? {} : { retryNum: envelope.retry_num }),
        ...(envelope.retry_reason === undefined ? {} : { retryReason: envelope.retry_reason }),
      })
      .then(() => acknowledge())
      .catch((error: unknown) => {
        clearTimeout(timer);
        logger.error(
          { ...where, err: error },
          acknowledged ? "slack event handling failed" : "slack event handling failed; left for Slack to send again",
        );
      });
    this.setup.track(work);
  }
}
