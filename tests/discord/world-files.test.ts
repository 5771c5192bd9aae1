import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inboxPath } from "../../src/world/files/inbound-files.js";
import { countsCsv, inboxLineCounter } from "../fakes/inbox-line-counter.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const mebibyte = 1024 * 1024;
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

  it("a CSV reaches a shell_cmd run through the inbox/ path the model was given; the asker approves, the count is answered", async () => {
    const { model: alice, paths } = inboxLineCounter("counts.csv");
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    const message = t.fake.userMessage({
      channelId: t.general.id,
      author: t.ana,
      content: "@alice how many rows?",
      attachments: [{ filename: "counts.csv", bytes: new TextEncoder().encode(countsCsv) }],
    });
    await t.settle(message);
    const stored = await t.world.store.findMessageByPlatformId(t.chatKeyOf(), message.id);
    const csvPath = inboxPath(stored?.id ?? "", "counts.csv");
    expect(paths).toEqual([csvPath]);
    const card = t.posts().find((post) => post.components.length > 0);
    if (!card) throw new Error("no approval card");
    expect(card.content).toContain(csvPath);
    const buttons = (card.components as { components: { label: string; custom_id: string }[] }[]).flatMap(
      (row) => row.components,
    );
    const approve = buttons.find((button) => button.label === "Approve once");
    await t.press(t.ana, card, approve?.custom_id ?? "");

    const result = alice.requests[1]?.messages.at(-1);
    expect(result?.role).toBe("tool");
    expect(result?.text).toMatch(new RegExp(`^exit code: 0\\nstdout:\\n\\s*3 ${csvPath}\\n`));
    expect(t.posts().at(-1)?.content).toBe(`wc says: exit code: 0 stdout: 3 ${csvPath} stderr: (empty)`);
  });

  it("a 30 MiB attachment is refused with one line naming it, not downloaded, and the question is still answered", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Here is the summary." }));
    t = await worldOnDiscord({ agents: [{ name: "alice", provider: alice }] });
    const message = t.fake.userMessage({
      channelId: t.general.id,
      author: t.ana,
      content: "@alice summarise the log",
      attachments: [{ filename: "server.log", bytes: new Uint8Array(30 * mebibyte) }],
    });
    await t.settle(message);

    const contents = t.posts().map((post) => post.content);
    expect(contents).toContain("Here is the summary.");
    expect(contents.filter((content) => content.includes("server.log"))).toEqual([
      "Not passed on to the agents: server.log (too big: over 20 MiB). The message itself was.",
    ]);
    // Announced too big in the attachment's size: never fetched from the CDN.
    expect(t.fake.attachmentDownloads).toEqual([]);
    expect(alice.requests[0]?.messages.at(-1)?.text).toContain(
      "[file server.log, 30 MiB: not passed on (too big: over 20 MiB)]",
    );
    const stored = await t.world.store.findMessageByPlatformId(t.chatKeyOf(), message.id);
    expect(await t.world.store.messageFiles(stored?.id ?? "")).toEqual([
      {
        name: "server.log",
        mediaType: "application/octet-stream",
        size: 30 * mebibyte,
        refusal: "too big: over 20 MiB",
      },
    ]);
    expect(existsSync(path.join(t.world.workdir, "inbox"))).toBe(false);
  });
});
