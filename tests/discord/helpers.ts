import { DiscordAdapter } from "../../channels/discord/adapter.js";
import type { DiscordAdapterOptions } from "../../channels/discord/options.js";
import { type FakeChannel, FakeDiscord, type FakeDiscordUser } from "../fakes/discord-api.js";
import { capturingLogger, RecordingSink } from "../telegram/helpers.js";

export { capturingLogger, InstantClock, logsMatching, RecordingSink } from "../telegram/helpers.js";

export const mainToken = "main-bot-token";
export const aliceToken = "alice-bot-token";

/** A fake Discord with one guild (roles Ops and Dev), a text channel, a channel without webhooks, people and the bot. */
export interface DiscordWorld {
  fake: FakeDiscord;
  guildId: string;
  general: FakeChannel;
  /** A channel where the bot may not manage webhooks. */
  locked: FakeChannel;
  ana: FakeDiscordUser;
  olga: FakeDiscordUser;
  eve: FakeDiscordUser;
  bot: FakeDiscordUser;
}

export async function discordWorld(
  bots: { token: string; username: string; flags?: number }[] = [],
): Promise<DiscordWorld> {
  const fake = await FakeDiscord.start([{ token: mainToken, username: "Roundtable" }, ...bots]);
  const guild = fake.addGuild("Release team", ["Ops", "Dev"]);
  const general = fake.addTextChannel(guild.id, "general");
  const locked = fake.addTextChannel(guild.id, "locked", { manageWebhooks: false });
  const ana = fake.addUser("ana", "Ana");
  const olga = fake.addUser("olga", "Olga");
  const eve = fake.addUser("eve", "Eve");
  fake.addMember(guild.id, ana, ["Dev"]);
  fake.addMember(guild.id, olga, ["Ops"]);
  fake.addMember(guild.id, eve, []);
  return { fake, guildId: guild.id, general, locked, ana, olga, eve, bot: fake.botUser(mainToken) };
}

export interface AdapterHarness extends DiscordWorld {
  adapter: DiscordAdapter;
  sink: RecordingSink;
  lines: Record<string, unknown>[];
  close(): Promise<void>;
}

/** The real adapter on the fake, started against a recording sink. */
export async function adapterHarness(
  overrides: Partial<DiscordAdapterOptions> = {},
  bots: { token: string; username: string; flags?: number }[] = [],
): Promise<AdapterHarness> {
  const world = await discordWorld(bots);
  const { logger, lines } = capturingLogger();
  const adapter = new DiscordAdapter({
    token: mainToken,
    apiUrl: world.fake.apiUrl,
    logger,
    agents: [{ name: "alice", displayName: "Alice", avatarUrl: "https://example.test/alice.png" }, { name: "bob" }],
    ...overrides,
  });
  const sink = new RecordingSink();
  try {
    await adapter.start(sink);
  } catch (error) {
    await world.fake.close();
    throw error;
  }
  return {
    ...world,
    adapter,
    sink,
    lines,
    async close() {
      await adapter.stop();
      await world.fake.close();
    },
  };
}

/** Wait for a condition, at most `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
