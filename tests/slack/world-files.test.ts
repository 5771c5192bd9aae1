import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inboxPath } from "../../src/world/files/inbound-files.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, botToken, channel, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

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
});
