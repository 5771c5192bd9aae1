import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inboxPath } from "../../src/world/files/inbound-files.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const gif = Uint8Array.from([...Buffer.from("GIF89a"), 1, 0, 1, 0, 0, 0]);

describe("attachments in a Discord channel", () => {
  it("an image and a log attached to a question reach the model from the CDN; a message of attachments alone is taken", async () => {
    const model = new ScriptedProvider(() => ({ text: "The log shows a timeout." }));
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: model }], world: { defaultAgent: "alice" } });
    const message = t.fake.userMessage({
      channelId: t.general.id,
      author: t.ana,
      content: "what went wrong?",
      attachments: [
        { filename: "chart.gif", bytes: gif },
        { filename: "app.log", bytes: new TextEncoder().encode("12:00 timeout after 30s\n") },
      ],
    });
    await t.settle(message);

    expect(t.posts().map((post) => post.content)).toEqual(["The log shows a timeout."]);
    expect(t.fake.attachmentDownloads).toHaveLength(2);
    const last = model.requests[0]?.messages.at(-1);
    expect(last?.role === "user" ? last.images : undefined).toEqual([
      { mediaType: "image/gif", base64: Buffer.from(gif).toString("base64") },
    ]);
    expect(last?.text).toContain("--- app.log ---\n12:00 timeout after 30s\n");
    const stored = await t.world.store.findMessageByPlatformId(t.chatKeyOf(), message.id);
    expect(readFileSync(path.join(t.world.workdir, inboxPath(stored?.id ?? "", "app.log")), "utf8")).toBe(
      "12:00 timeout after 30s\n",
    );

    const alone = t.fake.userMessage({
      channelId: t.general.id,
      author: t.ana,
      content: "",
      attachments: [{ filename: "chart.gif", bytes: gif }],
    });
    await t.settle(alone);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.messages.at(-1)?.text).toMatch(/^Ana: \[file chart\.gif, image\/gif, 12 B, at inbox\//);
  });
});
