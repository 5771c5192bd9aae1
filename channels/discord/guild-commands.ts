import type { Logger } from "../../src/log/logger.js";
import { chatCommands } from "../../src/world/channel-adapter.js";
import type { DiscordApi } from "./api.js";

/** `/rules revoke:<id>`: the rule to revoke (without it `/rules` lists them). */
const rulesRevokeOption = {
  type: 3,
  name: "revoke",
  description: "The id of a stored rule to revoke",
  required: false,
};

/**
 * The chat commands as application commands of each guild the bot is in (guild commands show at
 * once): registered when the gateway connects and when the bot joins a guild while running.
 */
export class GuildCommands {
  private readonly registered = new Set<string>();

  constructor(
    private readonly api: DiscordApi,
    private readonly applicationId: () => string,
    private readonly logger: Logger,
  ) {}

  /** Whether `guildId` has them (or is being given them). */
  has(guildId: string): boolean {
    return this.registered.has(guildId);
  }

  /** A refusal is logged, not fatal; the guild is tried again when it is seen again. */
  async register(guildId: string): Promise<void> {
    this.registered.add(guildId);
    const commands = chatCommands.map((command) => ({
      name: command.name,
      description: command.description,
      type: 1,
      ...(command.name === "rules" ? { options: [rulesRevokeOption] } : {}),
    }));
    try {
      await this.api.registerGuildCommands(this.applicationId(), guildId, commands);
    } catch (error) {
      this.registered.delete(guildId);
      this.logger.warn({ err: error, guild: guildId }, "could not register the chat commands in a discord guild");
    }
  }
}
