import { randomBytes } from "node:crypto";
import type { LoginSessionRecord, LoginSessionStore } from "../../src/world/channel-adapter.js";
import { sameSecret, sessionIdHash, type WebCredentials, type WebLogin } from "./credentials.js";

/** How long a login lasts. */
export const sessionLifetimeMs = 30 * 24 * 60 * 60 * 1000;

/**
 * Logins of the web console, kept server-side: the cookie holds a random id (32 bytes), the
 * store keeps its hash, who logged in, a check tied to the token used, and the expiry.
 */
export class WebSessions {
  constructor(
    private readonly store: LoginSessionStore,
    private readonly credentials: WebCredentials,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Open a session for a login; returns the id the cookie carries. */
  async open(login: WebLogin): Promise<string> {
    const id = randomBytes(32).toString("base64url");
    const credential = this.credentials.sessionCheck(login, id);
    // Programming error: a login is only made from a token these credentials matched.
    if (credential === undefined) throw new Error("no token for this login");
    const createdAt = this.clock();
    await this.store.createLoginSession({
      idHash: sessionIdHash(id),
      person: login.kind === "person" ? login.name : undefined,
      credential,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + sessionLifetimeMs),
    });
    return id;
  }

  /** The login of a session id, if the session exists, has not expired, and its token still holds. */
  async resolve(id: string): Promise<WebLogin | undefined> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(id)) return undefined;
    const record = await this.store.findLoginSession(sessionIdHash(id), this.clock());
    if (!record) return undefined;
    const login: WebLogin = record.person === undefined ? { kind: "shared" } : { kind: "person", name: record.person };
    const check = this.credentials.sessionCheck(login, id);
    return check !== undefined && sameSecret(record.credential, check) ? login : undefined;
  }

  /** End a session (logout). */
  async end(id: string): Promise<void> {
    if (/^[A-Za-z0-9_-]{20,100}$/.test(id)) await this.store.deleteLoginSession(sessionIdHash(id));
  }
}

/** Sessions in this process's memory: for an adapter made without a store (tests, a page of its own). */
export function memoryLoginSessions(): LoginSessionStore {
  const sessions = new Map<string, LoginSessionRecord>();
  return {
    async createLoginSession(session) {
      for (const [key, value] of sessions) if (value.expiresAt <= session.createdAt) sessions.delete(key);
      sessions.set(session.idHash, session);
    },
    async findLoginSession(idHash, now) {
      const found = sessions.get(idHash);
      return found && found.expiresAt > now ? found : undefined;
    },
    async deleteLoginSession(idHash) {
      return sessions.delete(idHash);
    },
  };
}
