import type { Server } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import { type Json, snowflake } from "./discord-state.js";

/**
 * The fake Discord gateway (JSON encoding, no compression): HELLO, IDENTIFY → READY and one
 * GUILD_CREATE per guild, heartbeats acknowledged, RESUME replays what the session missed and
 * ends with RESUMED, and the server side can drop the connection, ask for a reconnect
 * (op 7) or invalidate the session (op 9). Dispatches carry increasing sequence numbers per
 * session; a dispatch while the client is away waits in the session's log for its resume.
 */

export interface GatewaySession {
  id: string;
  token: string;
  intents: number;
  seq: number;
  log: { s: number; t: string; d: unknown }[];
  socket: WebSocket | undefined;
  valid: boolean;
}

export interface GatewayHooks {
  /** READY's `user` and `application` for a token, or undefined when the token is unknown. */
  identify(token: string): { user: Json; application: Json } | undefined;
  /** The GUILD_CREATE payloads to send after READY. */
  guilds(): Json[];
  /** What a session is shown of a dispatch (Discord hides message text without the content intent). */
  shape?(session: GatewaySession, t: string, d: unknown): unknown;
}

export class FakeGateway {
  readonly sessions: GatewaySession[] = [];
  /** Every op the clients sent, in order (heartbeats included). */
  readonly received: { op: number; d: unknown }[] = [];
  readonly identifies: { token: string; intents: number }[] = [];
  readonly resumes: { sessionId: string; seq: number }[] = [];
  /**
   * How many already-delivered dispatches a resume replays again (0 as on Discord); more plays
   * a delivery the client saw twice.
   */
  replayOverlap = 0;
  private readonly server: WebSocketServer;

  constructor(
    http: Server,
    private readonly hooks: GatewayHooks,
    readonly url: string,
  ) {
    this.server = new WebSocketServer({ server: http, path: "/gateway" });
    this.server.on("connection", (socket) => this.accept(socket));
  }

  /** The live session of the main bot (the newest valid one). */
  current(): GatewaySession | undefined {
    return this.sessions.filter((session) => session.valid).at(-1);
  }

  isConnected(): boolean {
    const socket = this.current()?.socket;
    return socket !== undefined && socket.readyState === socket.OPEN;
  }

  /** Send a dispatch to the current session (kept for a resume if the client is away). */
  dispatch(t: string, d: unknown): number {
    const session = this.current();
    if (!session) throw new Error(`no gateway session to dispatch ${t} to`);
    session.seq += 1;
    const entry = { s: session.seq, t, d: this.hooks.shape ? this.hooks.shape(session, t, d) : d };
    session.log.push(entry);
    this.send(session.socket, { op: 0, ...entry });
    return session.seq;
  }

  /** Close the connection as a network drop would (code 4000: the client resumes). */
  drop(code = 4000): void {
    const socket = this.current()?.socket;
    socket?.close(code, "dropped by the fake");
  }

  /** Ask the client to reconnect and resume (op 7). */
  requestReconnect(): void {
    this.send(this.current()?.socket, { op: 7, d: null });
  }

  /** Invalidate the session (op 9, not resumable): the client identifies anew. */
  invalidateSession(): void {
    const session = this.current();
    if (!session) return;
    session.valid = false;
    this.send(session.socket, { op: 9, d: false });
  }

  async close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    this.send(socket, { op: 10, d: { heartbeat_interval: 45_000 } });
    socket.on("message", (data) => {
      let payload: { op?: unknown; d?: unknown };
      try {
        payload = JSON.parse(String(data)) as { op?: unknown; d?: unknown };
      } catch {
        socket.close(4002, "Error while decoding payload.");
        return;
      }
      this.received.push({ op: Number(payload.op), d: payload.d });
      this.handle(socket, Number(payload.op), (payload.d ?? {}) as Json);
    });
    socket.on("close", () => {
      for (const session of this.sessions) if (session.socket === socket) session.socket = undefined;
    });
  }

  private handle(socket: WebSocket, op: number, d: Json): void {
    switch (op) {
      case 1:
        this.send(socket, { op: 11 });
        return;
      case 2:
        this.identify(socket, d);
        return;
      case 6:
        this.resume(socket, d);
        return;
      default:
        return;
    }
  }

  private identify(socket: WebSocket, d: Json): void {
    const token = String(d.token ?? "").replace(/^Bot /, "");
    const identity = this.hooks.identify(token);
    if (!identity) {
      socket.close(4004, "Authentication failed.");
      return;
    }
    const intents = Number(d.intents ?? 0);
    this.identifies.push({ token, intents });
    for (const old of this.sessions) old.valid = false;
    const session: GatewaySession = { id: snowflake(), token, intents, seq: 0, log: [], socket, valid: true };
    this.sessions.push(session);
    const guilds = this.hooks.guilds();
    this.dispatch("READY", {
      v: 10,
      user: identity.user,
      guilds: guilds.map((guild) => ({ id: guild.id, unavailable: true })),
      session_id: session.id,
      resume_gateway_url: this.url,
      shard: [0, 1],
      application: identity.application,
    });
    for (const guild of guilds) this.dispatch("GUILD_CREATE", guild);
  }

  private resume(socket: WebSocket, d: Json): void {
    const session = this.sessions.find((each) => each.id === d.session_id);
    const seq = Number(d.seq ?? 0);
    this.resumes.push({ sessionId: String(d.session_id), seq });
    if (!session?.valid) {
      this.send(socket, { op: 9, d: false });
      return;
    }
    session.socket = socket;
    for (const entry of session.log) {
      if (entry.s > seq - this.replayOverlap && entry.t !== "READY" && entry.t !== "RESUMED")
        this.send(socket, { op: 0, ...entry });
    }
    session.seq += 1;
    const resumed = { s: session.seq, t: "RESUMED", d: {} };
    session.log.push(resumed);
    this.send(socket, { op: 0, ...resumed });
  }

  private send(socket: WebSocket | undefined, payload: Json): void {
    if (socket && socket.readyState === socket.OPEN) socket.send(JSON.stringify(payload));
  }
}
