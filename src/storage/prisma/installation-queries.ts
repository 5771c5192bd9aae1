import type { Platform } from "../../world/chat-ref.js";
import type { ChannelInstallationRecord, ChannelInstallationStore } from "../../world/stores/installation-store.js";
import type { DatabaseClient } from "./database-client.js";

/** The {@link ChannelInstallationStore} over Prisma (SQLite and PostgreSQL alike). */
export class InstallationQueries implements ChannelInstallationStore {
  constructor(private readonly db: DatabaseClient) {}

  async saveChannelInstallation(record: ChannelInstallationRecord): Promise<void> {
    const data = {
      botId: record.botId,
      botUserId: record.botUserId,
      scopes: record.scopes.join(","),
      sealedToken: record.sealedToken,
      installedBy: record.installedBy ?? null,
      installedAt: record.installedAt,
    };
    await this.db.channelInstallation.upsert({
      where: { platform_workspace: { platform: record.platform, workspace: record.workspace } },
      create: { platform: record.platform, workspace: record.workspace, ...data },
      update: data,
    });
  }

  async findChannelInstallation(platform: Platform, workspace: string): Promise<ChannelInstallationRecord | undefined> {
    const row = await this.db.channelInstallation.findUnique({
      where: { platform_workspace: { platform, workspace } },
    });
    if (!row) return undefined;
    return {
      platform,
      workspace: row.workspace,
      botId: row.botId,
      botUserId: row.botUserId,
      scopes: row.scopes === "" ? [] : row.scopes.split(","),
      sealedToken: row.sealedToken,
      installedBy: row.installedBy ?? undefined,
      installedAt: row.installedAt,
    };
  }

  async deleteChannelInstallation(platform: Platform, workspace: string): Promise<boolean> {
    const { count } = await this.db.channelInstallation.deleteMany({ where: { platform, workspace } });
    return count > 0;
  }
}
