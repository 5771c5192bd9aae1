import { REST } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { sendDiscordFile } from "../../channels/discord/send-file.js";
import { alice, csv, png } from "../fakes/outbound-files.js";
import { FakeDiscord } from "../fakes/discord-api.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("Discord: a multipart message with files[0] and payload_json", () => {
  async function discord() {
    const fake = await FakeDiscord.start([{ token: "bot-token", username: "roundtable" }]);
    closers.push(() => fake.close());
    const guild = fake.addGuild("team");
    const channel = fake.addTextChannel(guild.id, "general", { manageWebhooks: true });
    const rest = new REST({ version: "10", api: fake.apiUrl }).setToken("bot-token");
    return { fake, rest, guild, channel };
  }

  it("as the bot: the attachment's bytes, the caption led by the bold name, no pings, the key's nonce", async () => {
    const { fake, rest, guild, channel } = await discord();
    const chat = { platform: "discord" as const, workspace: guild.id, channel: channel.id };
    const key = { key: "m1:tool-files:0", mayExist: false, since: new Date(0) };
    const id = await sendDiscordFile(rest, chat, alice, png, { key });
    const sent = fake.message(id);
    expect(sent?.content).toBe("**alice**: chart.png from notes__picture");
    expect(sent?.attachments.map((file) => file.filename)).toEqual(["chart.png"]);
    expect(Buffer.from(sent?.attachments[0]?.bytes ?? []).equals(Buffer.from(png.bytes))).toBe(true);
    const [call] = fake.callsTo("POST", new RegExp(`^/channels/${channel.id}/messages$`));
    expect(call?.body).toMatchObject({
      attachments: [{ id: 0, filename: "chart.png" }],
      allowed_mentions: { parse: [] },
      enforce_nonce: true,
    });
    // The same key again: Discord answers with the message it made, nothing new is posted.
    expect(await sendDiscordFile(rest, chat, alice, png, { key })).toBe(id);
    expect(fake.messagesIn(channel.id)).toHaveLength(1);
  });

  it("through the channel's webhook: under the agent's name, the caption alone", async () => {
    const { fake, rest, guild, channel } = await discord();
    const hook = (await rest.post(`/channels/${channel.id}/webhooks`, { body: { name: "roundtable" } })) as {
      id: string;
      token: string;
    };
    const chat = { platform: "discord" as const, workspace: guild.id, channel: channel.id };
    const id = await sendDiscordFile(rest, chat, { ...alice, displayName: "Alice" }, csv, { webhook: hook });
    const sent = fake.message(id);
    expect(sent).toMatchObject({ content: "report.csv from shell_cmd", author: { username: "Alice" } });
    expect(sent?.attachments[0]).toMatchObject({ filename: "report.csv", content: "a,b\n1,2\n" });
  });
});
