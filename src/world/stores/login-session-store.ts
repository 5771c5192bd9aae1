/** A stored login of the web console (the session id itself is never stored, only its hash). */
export interface LoginSessionRecord {
  /** sha256 of the session id the cookie holds (hex). */
  idHash: string;
  /** Who logged in: a name of `channels.web.users`, or undefined for the shared token. */
  person: string | undefined;
  /** A check tied to the token used to log in: a changed token ends its sessions. */
  credential: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Login sessions kept in the database, so a restart keeps them and every process of a
 * PostgreSQL deployment sees them (docs/architecture.md, "Ports"). Part of the `Store`.
 */
export interface LoginSessionStore {
  /** Record a new session; expired sessions are removed on the way. */
  createLoginSession(session: LoginSessionRecord): Promise<void>;
  /** The session with this id hash, if it exists and has not expired by `now`. */
  findLoginSession(idHash: string, now: Date): Promise<LoginSessionRecord | undefined>;
  /** End a session (logout); returns whether one was ended. */
  deleteLoginSession(idHash: string): Promise<boolean>;
}
