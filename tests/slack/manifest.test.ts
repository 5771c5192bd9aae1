import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { scopeNeeds } from "../../channels/slack/scopes.js";
import { platformChecks } from "../../src/cli/check/check-platforms.js";
import { runCheck } from "../../src/cli/check/check-row.js";
import { configSchema } from "../../src/config/schema.js";
import { repositoryRoot } from "../cli/run-roundtable.js";
import { defaultScopes, FakeSlack } from "../fakes/slack-api.js";
import { botToken, signingSecret, teamId } from "./world-slack.js";

interface Manifest {
  features: { app_home?: Record<string, boolean> };
  oauth_config: { scopes: { bot: string[] } };
  settings: { event_subscriptions: { bot_events: string[] } };
}

async function manifest(): Promise<Manifest> {
  return parse(await readFile(path.join(repositoryRoot, "channels", "slack", "manifest.yaml"), "utf8")) as Manifest;
}

let fake: FakeSlack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("the Slack app manifest (#28)", () => {
  it("opens the Messages tab for writing, so people can send the app direct messages", async () => {
    const { features, settings } = await manifest();
    expect(features.app_home).toEqual({
      home_tab_enabled: false,
      messages_tab_enabled: true,
      messages_tab_read_only_enabled: false,
    });
    expect(settings.event_subscriptions.bot_events).toEqual(expect.arrayContaining(["message.im", "message.mpim"]));
  });

  it("every bot scope it asks for is checked at start and by roundtable check (the slash command's aside)", async () => {
    const { oauth_config } = await manifest();
    const asked = oauth_config.scopes.bot.filter((scope) => scope !== "commands").sort();
    expect(scopeNeeds.map((need) => need.scope).sort()).toEqual(asked);
    expect([...defaultScopes].sort()).toEqual([...oauth_config.scopes.bot].sort());
  });

  it("roundtable check names a missing mpim:history", async () => {
    fake = await FakeSlack.start({
      botToken,
      signingSecret,
      teamId,
      scopes: defaultScopes.filter((scope) => scope !== "mpim:history"),
    });
    const config = configSchema.parse({ channels: { slack: { botToken, signingSecret, apiUrl: fake.apiUrl } } });
    const [row] = await Promise.all(platformChecks(config).map((check) => runCheck(check.name, check.run)));
    expect(row?.detail).toContain("missing scopes: mpim:history (reading group direct messages");
  });
});
