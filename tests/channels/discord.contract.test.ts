import { DiscordAdapter } from "../../channels/discord/adapter.js";
import { encodeApprovalCustomId } from "../../channels/discord/custom-id.js";
import { discordMessageLimit } from "../../channels/discord/split-message.js";
import { capturingLogger, discordWorld, InstantClock, mainToken, waitFor } from "../discord/helpers.js";
import type { StoredDiscordMessage } from "../fakes/discord-api.js";
import { type ChannelFixture, runChannelContract, type ShownMessage } from "./channel-contract.js";
import type { ContractSink } from "./contract-sink.js";

/**
 * Discord: the real adapter (discord.js) on the fake Discord, receiving through the fake
 * gateway. Every post the adapter makes comes back on the gateway as an echo, as on Discord.
 */
async function startDiscord(sink: ContractSink): Promise<ChannelFixture> {
  const world = await discordWorld();
  const { logger, lines } = capturingLogger();
  const adapter = new DiscordAdapter({
    token: mainToken,
    apiUrl: world.fake.apiUrl,
    logger,
    agents: [{ name: "alice", displayName: "Alice" }, { name: "bob" }],
    clock: new InstantClock(),
  });
  try {
    await adapter.start(sink);
  } catch (error) {
    await world.fake.close();
    throw error;
  }
  /** How many times the adapter has finished with a gateway message (handed in, ignored, skipped). */
  const handled = (messageId: string): number =>
    lines.filter(
      (line) =>
        line.messageId === messageId &&
        typeof line.msg === "string" &&
        /discord message (handed in|ignored|not handled)|own discord post|malformed discord/.test(line.msg),
    ).length;
  const chat = { platform: "discord" as const, workspace: world.guildId, channel: world.general.id };
  return {
    adapter,
    chat,
    person: { id: world.ana.id, name: "Ana" },
    async deliverMessage(text) {
      const message = world.fake.userMessage({ channelId: world.general.id, author: world.ana, content: text });
      await waitFor(() => handled(message.id) === 1);
      return { platformMessageId: message.id, raw: message };
    },
    async redeliver(delivered) {
      const message = delivered.raw as StoredDiscordMessage;
      const before = handled(message.id);
      world.fake.redeliver(message);
      await waitFor(() => handled(message.id) > before);
    },
    async deliverOwnEcho(sent) {
      // Discord sends every post back on the gateway by itself: wait for those echoes.
      for (const id of sent.ids) await waitFor(() => handled(id) >= 1);
    },
    async deliverClick(sent, card, choice) {
      const message = world.fake.message(sent.ids[0] ?? "");
      if (!message) throw new Error("no card to press");
      const interaction = world.fake.click({
        message,
        user: world.ana,
        customId: encodeApprovalCustomId(card.approvalId, choice),
      });
      await waitFor(() => interaction.ephemeral.length > 0 || interaction.followups.length > 0);
      const privateText = interaction.ephemeral[0];
      return privateText === undefined ? {} : { privateText };
    },
    async shownMessages(): Promise<ShownMessage[]> {
      return world.fake.messagesIn(world.general.id).map((message) => ({
        id: message.id,
        text: message.content,
        buttons: (message.components as { components?: unknown[] }[]).reduce(
          (sum, row) => sum + (row.components?.length ?? 0),
          0,
        ),
      }));
    },
    async close() {
      await adapter.stop();
      await world.fake.close();
    },
  };
}

runChannelContract({ name: "discord", maxMessageLength: discordMessageLimit, start: startDiscord });
