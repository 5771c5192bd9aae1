import type { LoginSessionRecord, LoginSessionStore } from "../../world/stores/login-session-store.js";
import type { DatabaseClient } from "./database-client.js";

/** The {@link LoginSessionStore} over Prisma (SQLite and PostgreSQL alike). */
export class LoginSessionQueries implements LoginSessionStore {
  constructor(private readonly db: DatabaseClient) {}

  async createLoginSession(session: LoginSessionRecord): Promise<void> {
    await this.db.webSession.deleteMany({ where: { expiresAt: { lte: session.createdAt } } });
    await this.db.webSession.create({
      data: {
        idHash: session.idHash,
        person: session.person ?? null,
        credential: session.credential,
        createdAt: session.createdAt,
        expiresAt: session.expiresAt,
      },
    });
  }

  async findLoginSession(idHash: string, now: Date): Promise<LoginSessionRecord | undefined> {
    const row = await this.db.webSession.findUnique({ where: { idHash } });
    if (!row || row.expiresAt.getTime() <= now.getTime()) return undefined;
    return {
      idHash: row.idHash,
      person: row.person ?? undefined,
      credential: row.credential,
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
    };
  }

  async deleteLoginSession(idHash: string): Promise<boolean> {
    const { count } = await this.db.webSession.deleteMany({ where: { idHash } });
    return count > 0;
  }
}
