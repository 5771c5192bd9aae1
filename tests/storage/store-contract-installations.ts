import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type StoreFixture, storeOpenedFor } from "./store-contract-fixtures.js";

/** "Add to Slack" installations: one per workspace, replaced on reinstall, deleted for that workspace only. */
export function storeInstallationContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}, channel installations`, () => {
    const store = storeOpenedFor(open);

    it("keeps one installation per workspace, replaces it on reinstall and deletes only the one named", async () => {
      const a = `T${randomUUID().slice(0, 8)}`;
      const b = `T${randomUUID().slice(0, 8)}`;
      const installedAt = new Date("2026-11-01T00:00:00Z");
      const first = {
        platform: "slack" as const,
        workspace: a,
        botId: "B0A",
        botUserId: "U0A",
        scopes: ["chat:write", "users:read"],
        sealedToken: "v1.sealed-a",
        installedBy: "U1ANA",
        installedAt,
      };
      const other = { ...first, workspace: b, botId: "B0B", botUserId: "U0B", sealedToken: "v1.sealed-b" };
      await store.saveChannelInstallation(first);
      await store.saveChannelInstallation(other);
      expect(await store.findChannelInstallation("slack", a)).toEqual(first);
      // Another platform's workspace of the same id is another installation.
      expect(await store.findChannelInstallation("discord", a)).toBeUndefined();
      const again = { ...first, sealedToken: "v1.sealed-a2", scopes: [], installedBy: undefined };
      await store.saveChannelInstallation(again);
      expect(await store.findChannelInstallation("slack", a)).toEqual(again);
      expect(await store.deleteChannelInstallation("slack", a)).toBe(true);
      expect(await store.deleteChannelInstallation("slack", a)).toBe(false);
      expect(await store.findChannelInstallation("slack", a)).toBeUndefined();
      expect(await store.findChannelInstallation("slack", b)).toEqual(other);
    });
  });
}
