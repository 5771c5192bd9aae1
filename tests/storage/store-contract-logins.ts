import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

/** The web console's login sessions: kept in the database, found until they expire, ended by logout. */
export function storeLoginContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, web console login sessions`, () => {
    const store = storeOpenedFor(open);

    it("finds a session until it expires, and ends it on logout", async () => {
      const createdAt = new Date("2026-11-01T00:00:00Z");
      const expiresAt = new Date("2026-12-01T00:00:00Z");
      const ana = { idHash: `h-${randomUUID()}`, person: "ana", credential: "c1", createdAt, expiresAt };
      const shared = { idHash: `h-${randomUUID()}`, person: undefined, credential: "c2", createdAt, expiresAt };
      await store.createLoginSession(ana);
      await store.createLoginSession(shared);
      expect(await store.findLoginSession(ana.idHash, new Date("2026-11-15T00:00:00Z"))).toEqual(ana);
      expect(await store.findLoginSession(shared.idHash, new Date("2026-11-15T00:00:00Z"))).toEqual(shared);
      expect(await store.findLoginSession(ana.idHash, expiresAt)).toBeUndefined();
      expect(await store.findLoginSession("h-unknown", createdAt)).toBeUndefined();
      expect(await store.deleteLoginSession(ana.idHash)).toBe(true);
      expect(await store.deleteLoginSession(ana.idHash)).toBe(false);
      expect(await store.findLoginSession(ana.idHash, createdAt)).toBeUndefined();
      // A new login clears sessions that expired before it.
      await store.createLoginSession({
        ...ana,
        idHash: `h-${randomUUID()}`,
        createdAt: expiresAt,
        expiresAt: new Date("2027-01-01T00:00:00Z"),
      });
      expect(await store.deleteLoginSession(shared.idHash)).toBe(false);
    });
  });
}
