import { describe, expect, it } from "vitest";
import type { Platform } from "../chat-ref.js";
import { createWorldDirectory } from "./world-directory.js";
import type { WorldSettings } from "../world-settings.js";

function world(name: string): WorldSettings {
  return {
    name,
    agents: ["alice"],
    turnLimit: 6,
    respond: "addressed",
    afterDenial: "continue",
    approvers: {},
    members: {},
    approvalTimeout: 60_000,
    allowBots: false,
    limits: { messagesPerMinute: 20 },
  };
}

const worlds = [world("team"), world("ops")];
const worldNaming = new Set<Platform>(["console", "web"]);

describe("createWorldDirectory", () => {
  it("takes the world from the chat where the channel says its chats name their world", () => {
    const directory = createWorldDirectory(worlds, {}, worldNaming);
    expect(directory.worldFor({ platform: "web", workspace: "ops", channel: "ana" })?.name).toBe("ops");
    expect(directory.worldFor({ platform: "console", workspace: "team", channel: "ana" })?.name).toBe("team");
    expect(directory.worldFor({ platform: "console", channel: "ana" })?.name).toBe("team");
    expect(directory.worldFor({ platform: "web", workspace: "nowhere", channel: "ana" })).toBeUndefined();
  });

  it("binds the other platforms' chats by their bindings, whatever their workspace says", () => {
    const directory = createWorldDirectory(worlds, { slack: { C1: "ops", "*": "team" } }, worldNaming);
    expect(directory.worldFor({ platform: "slack", workspace: "ops", channel: "C2" })?.name).toBe("team");
    expect(directory.worldFor({ platform: "slack", workspace: "team", channel: "C1" })?.name).toBe("ops");
    expect(directory.worldFor({ platform: "telegram", channel: "-100" })).toBeUndefined();
  });

  it("binds a chat in its workspace first (T0123/C0TEAM), then by its channel alone", () => {
    const bindings = { slack: { "T0A/C1": "ops", C1: "team" } };
    const directory = createWorldDirectory(worlds, bindings, worldNaming);
    expect(directory.worldFor({ platform: "slack", workspace: "T0A", channel: "C1" })?.name).toBe("ops");
    expect(directory.worldFor({ platform: "slack", workspace: "T0B", channel: "C1" })?.name).toBe("team");
    expect(directory.worldFor({ platform: "slack", channel: "C1" })?.name).toBe("team");
    const only = createWorldDirectory(worlds, { slack: { "T0A/C1": "ops" } }, worldNaming);
    expect(only.worldFor({ platform: "slack", workspace: "T0B", channel: "C1" })).toBeUndefined();
    expect(only.bindsById({ platform: "slack", workspace: "T0A", channel: "C1" })).toBe(true);
    expect(only.bindsById({ platform: "slack", workspace: "T0B", channel: "C1" })).toBe(false);
  });

  it("reads the capability, not the platform's name", () => {
    const directory = createWorldDirectory(worlds, { web: { "*": "team" } }, new Set<Platform>(["slack"]));
    expect(directory.worldFor({ platform: "slack", workspace: "ops", channel: "C1" })?.name).toBe("ops");
    expect(directory.worldFor({ platform: "web", workspace: "ops", channel: "ana" })?.name).toBe("team");
  });

  it("gives a single world every chat of a platform with no bindings", () => {
    const directory = createWorldDirectory([world("solo")], {}, worldNaming);
    expect(directory.worldFor({ platform: "discord", channel: "123" })?.name).toBe("solo");
  });
});
