import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inboxPath } from "../../src/world/files/inbound-files.js";
import { countsCsv, inboxLineCounter } from "../fakes/inbox-line-counter.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, botToken, channel, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const mebibyte = 1024 * 1024;
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2]);

describe("files shared in Slack", () => {
  it("a screenshot shared with a question reaches the model as an image, downloaded with the bot token", async () => {
    const alice = new ScriptedProvider(() => ({ text: "It is a stack trace." }));
    t = await worldOnSlack({ mode: "http", agents: [{ name: "alice", provider: alice }] });
    const { message } = await t.fake.userFileShare({
      channel,
      user: ana,
      text: "@alice what does this show?",
      files: [
        { name: "Screen Shot 1.png", bytes: png },
        { name: "notes.csv", bytes: new TextEncoder().encode("a,b\n1,2\n") },
      ],
    });
    await t.settle();

    expect(t.replies(message.ts).map((reply) => reply.text)).toEqual(["It is a stack trace."]);
    expect(t.fake.fileDownloads.map((download) => download.authorization)).toEqual([
      `Bearer ${botToken}`,
      `Bearer ${botToken}`,
    ]);
    const request = alice.requests[0]?.messages.at(-1);
    expect(request?.role === "user" ? request.images : undefined).toEqual([
      { mediaType: "image/png", base64: Buffer.from(png).toString("base64") },
    ]);
    const stored = await t.world.store.findMessageByPlatformId(threadKey(message.ts), message.ts);
    expect(stored?.fileCount).toBe(2);
    const csv = path.join(t.world.workdir, inboxPath(stored?.id ?? "", "notes.csv"));
    expect(readFileSync(csv, "utf8")).toBe("a,b\n1,2\n");
    expect(request?.text).toContain(
      `[file Screen_Shot_1.png, image/png, 14 B, at ${inboxPath(stored?.id ?? "", "Screen_Shot_1.png")}]`,
    );
  });

  it("a CSV reaches a shell_cmd run through the inbox/ path the model was given; the asker approves, the count is answered", async () => {
    const { model: alice, paths } = inboxLineCounter("counts.csv");
    t = await worldOnSlack({ mode: "http", agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    const { message } = await t.fake.userFileShare({
      channel,
      user: ana,
      text: "@alice how many rows?",
      files: [{ name: "counts.csv", bytes: new TextEncoder().encode(countsCsv) }],
    });
    await t.settle();
    const stored = await t.world.store.findMessageByPlatformId(threadKey(message.ts), message.ts);
    const csvPath = inboxPath(stored?.id ?? "", "counts.csv");
    expect(paths).toEqual([csvPath]);
    const [card] = t.cards(message.ts);
    if (!card) throw new Error("no approval card");
    expect(JSON.stringify(card.blocks)).toContain(csvPath);
    await t.press(ana, card, /Approve once/);

    const result = alice.requests[1]?.messages.at(-1);
    expect(result?.role).toBe("tool");
    expect(result?.text).toMatch(new RegExp(`^exit code: 0\\nstdout:\\n\\s*3 ${csvPath}\\n`));
    expect(t.replies(message.ts).at(-1)?.text).toBe(`wc says: exit code: 0 stdout: 3 ${csvPath} stderr: (empty)`);
  });

  it("a 30 MiB file is refused with one line naming it, not downloaded, and the question is still answered", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Here is the summary." }));
    t = await worldOnSlack({ mode: "http", agents: [{ name: "alice", provider: alice }] });
    const { message } = await t.fake.userFileShare({
      channel,
      user: ana,
      text: "@alice summarise the log",
      files: [{ name: "server.log", bytes: new Uint8Array(30 * mebibyte) }],
    });
    await t.settle();

    const texts = t.replies(message.ts).map((reply) => reply.text);
    expect(texts).toContain("Here is the summary.");
    expect(texts.filter((text) => text?.includes("server.log"))).toEqual([
      "Not passed on to the agents: server.log (too big: over 20 MiB). The message itself was.",
    ]);
    // Announced too big in the event: never fetched.
    expect(t.fake.fileDownloads).toEqual([]);
    expect(alice.requests[0]?.messages.at(-1)?.text).toContain(
      "[file server.log, 30 MiB: not passed on (too big: over 20 MiB)]",
    );
    const stored = await t.world.store.findMessageByPlatformId(threadKey(message.ts), message.ts);
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
