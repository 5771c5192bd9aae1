import { REST } from "discord.js";
import type { Logger } from "../../src/log/logger.js";
import { DiscordApi, toPlatformError } from "./api.js";
import type { RestRetryOptions } from "./rest-retries.js";

/** A Discord user as the API returns it for the bot itself. */
export interface BotUser {
  id: string;
  username: string;
  global_name?: string | null;
}

/** An agent's own bot (its own token): it posts as that bot; its user id is known once identified. */
export interface AgentBot {
  agent: string;
  api: DiscordApi;
  userId?: string;
}

/** Who shows typing for `author` in `chat`: the agent's own bot where it posts as one (in a guild), else `main`. */
export function typingApi(
  agentBots: ReadonlyMap<string, AgentBot>,
  chat: { workspace?: string },
  author: { kind: string; name: string },
  main: DiscordApi,
): DiscordApi {
  const own =
    author.kind === "agent" && chat.workspace !== undefined ? agentBots.get(author.name.toLowerCase()) : undefined;
  return own?.userId ? own.api : main;
}

/**
 * The REST client for one bot token, pointed at `apiUrl` when given (tests' fake Discord).
 * discord.js's own retries are off: `retries` tries again only what is safe (rest-retries.ts).
 */
export function apiFor(token: string, apiUrl: string | undefined, retries: RestRetryOptions): DiscordApi {
  const rest = new REST({ version: "10", retries: 0, ...(apiUrl === undefined ? {} : { api: apiUrl }) });
  return new DiscordApi(rest.setToken(token), retries);
}

/** Who a bot token belongs to; a refused token is a platform error naming `what`. */
export async function identifyBot(api: DiscordApi, what: string): Promise<BotUser> {
  try {
    return await api.currentUser();
  } catch (error) {
    throw toPlatformError(error, `identify (${what})`);
  }
}

/** Learns an agent bot's user id; a refused token is logged and the agent posts through the main bot. */
export async function identifyAgentBot(bot: AgentBot, logger: Logger): Promise<void> {
  try {
    const me = await bot.api.currentUser();
    bot.userId = me.id;
    logger.info({ agent: bot.agent, bot: me.username }, "agent posts as its own discord bot");
  } catch (error) {
    logger.error(
      { err: error, agent: bot.agent },
      "agent's discord bot token refused; the agent posts through the main bot",
    );
  }
}
