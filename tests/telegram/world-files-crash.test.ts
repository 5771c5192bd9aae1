import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inboxPath } from "../../src/world/files/inbound-files.js";
import { inboundMessageId } from "../../src/world/ingress/inbound-message-id.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { openTestStore, temporaryDatabaseUrl } from "../world/harness.js";
import { ana, groupId, mainToken } from "./helpers.js";
import { groupKey, leadingMention, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const photo = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 2, 3, 4, 5]);
const caption = "@alice what does this show?";

describe("a message's files after a crash between storing it and writing them", () => {
  it("the redelivered message is a duplicate, and its route step writes the files and says the refused one", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    // What the process that died left: the message stored with its files (as ingress stores
    // them: the photo with its bytes, a refused log without), nothing written to inbox/, no
    // notice, no route step queued. The fake's first message in the group has id 1.
    const id = inboundMessageId(groupKey, "1");
    const dead = await openTestStore(databaseUrl);
    try {
      await dead.store.ensureChat(groupKey, "main", "telegram");
      await dead.store.addMessage({
        id,
        chatKey: groupKey,
        author: { kind: "human", id: String(ana.id), name: "Ana", handle: "ana_r" },
        text: caption,
        platformMessageId: "1",
        files: [
          { name: "photo.jpg", mediaType: "image/jpeg", size: photo.length, bytes: photo },
          {
            name: "server.log",
            mediaType: "application/octet-stream",
            size: 30 << 20,
            refusal: "too big: over 20 MiB",
          },
        ],
      });
    } finally {
      await dead.close();
    }

    // The next process: Telegram hands the update again (its offset was never confirmed).
    const alice = new ScriptedProvider(() => ({ text: "It shows an error." }));
    let update: Record<string, unknown> = {};
    t = await worldOnTelegram({
      databaseUrl,
      agents: [{ name: "alice", provider: alice }],
      beforeStart: (fake) => {
        ({ update } = fake.userFiles(mainToken, {
          chatId: groupId,
          from: ana,
          caption,
          captionEntities: leadingMention(caption),
          photo,
        }));
      },
    });
    await t.settle(update);

    // A duplicate: nothing fetched again, one message stored.
    expect(t.fake.callsTo("getFile")).toHaveLength(0);
    expect((await t.world.store.listMessages(groupKey)).filter((m) => m.author.kind === "human")).toHaveLength(1);
    // The notice is published inside the route step, so it is delivered after the answer.
    expect(t.botTexts()).toEqual([
      "alice: It shows an error.",
      "Not passed on to the agents: server.log (too big: over 20 MiB). The message itself was.",
    ]);
    const written = path.join(t.world.workdir, inboxPath(id, "photo.jpg"));
    expect(readFileSync(written)).toEqual(Buffer.from(photo));
    expect(statSync(written).mode & 0o222).toBe(0);
    expect(alice.requests[0]?.messages.at(-1)?.text).toContain(`at ${inboxPath(id, "photo.jpg")}]`);
  });
});
