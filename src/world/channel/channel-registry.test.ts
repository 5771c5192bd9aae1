import { describe, expect, it } from "vitest";
import { RoundtableError } from "../../errors/roundtable-error.js";
import type { ChannelAdapter, ChannelCapabilities } from "../channel-adapter.js";
import { ChannelRegistry } from "./channel-registry.js";
import type { Platform } from "../chat-ref.js";

const capabilities: ChannelCapabilities = {
  canEdit: true,
  identifiesClickers: true,
  chatsNameTheirWorld: false,
};

function adapter(id: string, platform: Platform, agent?: string): ChannelAdapter {
  const base: ChannelAdapter = {
    id,
    platform,
    capabilities,
    start: async () => {},
    stop: async () => {},
    isConnected: () => true,
    renderParts: async () => [],
    samePart: () => true,
    sendPart: async () => "1",
    editPart: async () => "edited",
    deletePart: async () => {},
    sendCard: async () => ({ id: "1" }),
    editCard: async () => "edited",
    renderOutcome: async () => "",
    streamMode: () => ({ kind: "none" }),
  };
  return agent === undefined ? base : Object.assign(base, { agent });
}

describe("ChannelRegistry", () => {
  const main = adapter("slack", "slack");
  const bobsOwn = adapter("slack:bob", "slack", "bob");
  const telegram = adapter("telegram", "telegram");
  const registry = new ChannelRegistry([bobsOwn, main, telegram]);
  const chat = { platform: "slack" as const, channel: "C1" };

  it("keeps several adapters of one platform, and the agent's own one posts for that agent", () => {
    expect(registry.all()).toHaveLength(3);
    expect(registry.forChat(chat, { kind: "agent", id: "bob", name: "bob" })).toBe(bobsOwn);
    expect(registry.forChat(chat, { kind: "agent", id: "alice", name: "alice" })).toBe(main);
    expect(registry.forChat(chat, { kind: "system", id: "roundtable", name: "roundtable" })).toBe(main);
    expect(registry.forChat(chat)).toBe(main);
    expect(registry.forChat({ platform: "telegram", channel: "1" })).toBe(telegram);
    expect(registry.forChat({ platform: "discord", channel: "1" })).toBeUndefined();
  });

  it("refuses two adapters with one id instead of letting one replace the other", () => {
    expect(() => new ChannelRegistry([main, adapter("slack", "slack")])).toThrow(RoundtableError);
    expect(() => new ChannelRegistry([main, adapter("slack", "slack")])).toThrow(
      /two channel adapters have the id "slack"/,
    );
  });
});
