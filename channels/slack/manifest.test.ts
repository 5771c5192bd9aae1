import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { missingScopes, scopeNeeds } from "./scopes.js";

const manifest = parse(readFileSync(new URL("./manifest.yaml", import.meta.url), "utf8")) as {
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { bot_events: string[] };
    interactivity: { is_enabled: boolean };
    socket_mode_enabled: boolean;
  };
  features: { slash_commands: { command: string }[] };
};

describe("the Slack app manifest", () => {
  it("asks for every scope the service checks at start, events for channels, private channels and DMs, buttons and /roundtable", () => {
    expect(missingScopes(manifest.oauth_config.scopes.bot)).toEqual([]);
    expect(manifest.oauth_config.scopes.bot).toEqual(expect.arrayContaining(scopeNeeds.map((need) => need.scope)));
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(["app_mention", "message.channels", "message.groups", "message.im"]),
    );
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.features.slash_commands.map((command) => command.command)).toEqual(["/roundtable"]);
  });

  it("names each missing scope with the feature it breaks", () => {
    expect(missingScopes(["chat:write", "channels:history"]).map((need) => need.scope)).toContain(
      "chat:write.customize",
    );
    expect(missingScopes([]).find((need) => need.scope === "chat:write.customize")?.feature).toMatch(
      /agent's name in bold/,
    );
  });
});
