import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";

/** An envelope Slack sends over Socket Mode. */
export interface SocketEnvelope {
  envelope_id: string;
  type: "events_api" | "interactive" | "slash_commands";
  payload: unknown;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
}

/**
 * The Socket Mode side of the fake: `apps.connections.open` hands out a `ws://` URL on the same
 * port; a client that connects gets `hello`, then envelopes; each envelope waits for its ack
 * (`{ envelope_id, payload? }`).
 */
export class FakeSocketMode {
  private readonly server = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly acks = new Map<string, (payload: unknown) => void>();
  private readonly connectedWaiters = new Set<() => void>();
  private nextEnvelope = 1;
  private nextTicket = 1;
  /** Every ack received, in order. */
  readonly acked: { envelope_id: string; payload?: unknown }[] = [];
  /** How many connections were opened. */
  connections = 0;

  constructor(http: Server) {
    http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!request.url?.startsWith("/socket")) {
        socket.destroy();
        return;
      }
      this.server.handleUpgrade(request, socket, head, (ws) => this.accept(ws));
    });
  }

  /** A fresh URL for `apps.connections.open`. */
  ticketUrl(origin: string): string {
    return `${origin.replace(/^http/, "ws")}/socket?ticket=t${this.nextTicket++}`;
  }

  isConnected(): boolean {
    return this.sockets.size > 0;
  }

  /** Resolves once a client is connected (and has been greeted). */
  async whenConnected(timeoutMs = 10_000): Promise<void> {
    if (this.isConnected()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no socket mode client connected")), timeoutMs);
      this.connectedWaiters.add(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Send an envelope to the connected client; resolves with the ack's payload. */
  async send(
    type: SocketEnvelope["type"],
    payload: unknown,
    options: { retryAttempt?: number; timeoutMs?: number } = {},
  ): Promise<unknown> {
    await this.whenConnected();
    const [socket] = this.sockets;
    if (!socket) throw new Error("no socket mode client");
    const envelope: SocketEnvelope = {
      envelope_id: `env-${this.nextEnvelope++}`,
      type,
      payload,
      accepts_response_payload: type !== "events_api",
      ...(options.retryAttempt === undefined ? {} : { retry_attempt: options.retryAttempt, retry_reason: "timeout" }),
    };
    const acked = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`envelope ${envelope.envelope_id} not acked`)),
        options.timeoutMs ?? 10_000,
      );
      this.acks.set(envelope.envelope_id, (ackPayload) => {
        clearTimeout(timer);
        resolve(ackPayload);
      });
    });
    socket.send(JSON.stringify(envelope));
    return acked;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(ws: WebSocket): void {
    this.connections += 1;
    this.sockets.add(ws);
    ws.on("close", () => this.sockets.delete(ws));
    ws.on("message", (data) => {
      let parsed: { envelope_id?: string; payload?: unknown };
      try {
        parsed = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
      } catch {
        return;
      }
      if (typeof parsed.envelope_id !== "string") return;
      this.acked.push({
        envelope_id: parsed.envelope_id,
        ...(parsed.payload === undefined ? {} : { payload: parsed.payload }),
      });
      this.acks.get(parsed.envelope_id)?.(parsed.payload);
      this.acks.delete(parsed.envelope_id);
    });
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: 1,
        debug_info: { host: "fake-slack" },
        connection_info: { app_id: "A0FAKE" },
      }),
    );
    for (const wake of this.connectedWaiters) wake();
    this.connectedWaiters.clear();
  }
}
