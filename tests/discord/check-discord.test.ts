import { afterEach, describe, expect, it } from "vitest";
import { platformChecks } from "../../src/cli/check/check-platforms.js";
import { runCheck } from "../../src/cli/check/check-row.js";
import { configSchema } from "../../src/config/schema.js";
import { FakeDiscord } from "../fakes/discord-api.js";
import { adapterHarness, logsMatching, mainToken, waitFor } from "./helpers.js";

let fake: FakeDiscord | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function checkRows(flags: number) {
  fake = await FakeDiscord.start([{ token: mainToken, username: "Roundtable", flags }]);
  const config = configSchema.parse({ channels: { discord: { token: mainToken, apiUrl: fake.apiUrl } } });
  return Promise.all(platformChecks(config).map((check) => runCheck(check.name, check.run)));
}

describe("the message content intent", () => {
  it("roundtable check passes when the application has it", async () => {
    const [row] = await checkRows(1 << 18);
    expect(row).toMatchObject({ name: "discord", status: "ok" });
    expect(row?.detail).toMatch(/^bot Roundtable \(\d+\); message content intent granted$/);
  });

  it("roundtable check fails without it and says how to enable it", async () => {
    const [row] = await checkRows(0);
    expect(row).toMatchObject({ name: "discord", status: "FAIL" });
    expect(row?.detail).toContain("lacks the Message Content intent");
  });

  it("start warns, says how to enable it, and connects without asking for it (Discord would close with 4014)", async () => {
    const h = await adapterHarness({}, []);
    try {
      h.fake.setApplicationFlags(mainToken, 0);
      await h.adapter.stop();
      await h.adapter.start(h.sink);
      const warning = logsMatching(h.lines, /lacks the Message Content intent/);
      expect(warning).toHaveLength(1);
      expect(String(warning[0]?.msg)).toContain("Privileged Gateway Intents");
      expect(h.fake.gateway.identifies.at(-1)?.intents).toBe((1 << 0) | (1 << 9) | (1 << 12));
    } finally {
      await h.close();
    }
  });
});

describe("a bot without the message content intent", () => {
  it("reads messages that mention it; other guild messages arrive empty and are skipped with one warning", async () => {
    const h = await adapterHarness({}, []);
    try {
      h.fake.setApplicationFlags(mainToken, 0);
      await h.adapter.stop();
      await h.adapter.start(h.sink);
      h.fake.userMessage({ channelId: h.general.id, author: h.ana, content: "@alice plain text" });
      h.fake.userMessage({ channelId: h.general.id, author: h.ana, content: "another plain one" });
      h.fake.userMessage({
        channelId: h.general.id,
        author: h.ana,
        content: `<@${h.bot.id}> this one mentions the bot`,
      });
      await waitFor(() => h.sink.messages.length === 1);
      expect(h.sink.messages[0]?.text).toBe("this one mentions the bot");
      expect(logsMatching(h.lines, /arrived without text/)).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
