import { afterEach, describe, expect, it } from "vitest";
import { type AdapterHarness, adapterHarness, mainToken } from "./helpers.js";
import { ManualClock } from "../telegram/helpers.js";
import type { EditStream } from "../../src/world/delivery/edit-stream.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";

let h: AdapterHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const agent = { kind: "agent" as const, id: "bob", name: "bob" };

describe("streaming and rate limits on Discord", () => {
  it("a streamed answer is sent once, then edited at most once per second", async () => {
    const clock = new ManualClock();
    h = await adapterHarness({ clock });
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    const stream = (await writerFor(h.adapter).openStream(chat, agent)) as EditStream<unknown>;
    stream.update("Hel");
    await stream.settled();
    stream.update("Hello");
    stream.update("Hello, wor");
    await stream.settled();
    const executes = () => h?.fake.callsTo("POST", /^\/webhooks\//) ?? [];
    const edits = () => h?.fake.callsTo("PATCH", /^\/webhooks\//) ?? [];
    expect(executes()).toHaveLength(1);
    expect(edits()).toHaveLength(0);
    expect(clock.sleeping()).toBe(1);

    clock.advance(999);
    await stream.settled();
    expect(edits()).toHaveLength(0);
    clock.advance(1);
    await stream.settled();
    expect(edits()).toHaveLength(1);

    const finishing = stream.finish("Hello, world.");
    clock.advance(1000);
    const sent = await finishing;
    expect(edits()).toHaveLength(2);
    const message = h.fake.message(sent.ids[0] ?? "");
    expect(message?.history).toEqual(["Hel", "Hello, wor", "Hello, world."]);
    expect(message?.author.username).toBe("bob");
  });

  it("a 429 with retry_after is waited out by discord.js's REST client and the post goes through", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.locked.id };
    h.fake.rateLimitNext("POST", /^\/channels\/\d+\/messages$/, 0.05);
    const sent = await writerFor(h.adapter).postMessage(chat, {
      author: { kind: "system", id: "roundtable", name: "roundtable" },
      text: "after the wait",
    });
    const posts = h.fake.callsTo("POST", /^\/channels\/\d+\/messages$/);
    expect(posts.map((call) => call.status)).toEqual([429, 200]);
    expect(h.fake.message(sent.ids[0] ?? "")?.content).toBe("after the wait");
    expect(h.fake.message(sent.ids[0] ?? "")?.sentByToken).toBe(mainToken);
  });

  it("a refused post is a platform error without any token in its message", async () => {
    h = await adapterHarness();
    const chat = { platform: "discord" as const, workspace: h.guildId, channel: h.general.id };
    h.fake.failNext("POST", /^\/webhooks\//, 400, 50035, "Invalid Form Body");
    const failure = await writerFor(h.adapter)
      .postMessage(chat, { author: agent, text: "x" })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "platform.refused" });
    const message = (failure as Error).message;
    expect(message).toContain("50035");
    expect(message).toContain("[redacted]");
    expect(message).not.toMatch(/hook-\d+/);
    expect(h.lines.filter((line) => /hook-\d+/.test(JSON.stringify(line)))).toEqual([]);
  });
});
