import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inboxPath } from "../../src/world/files/inbound-files.js";
import { countsCsv, inboxLineCounter } from "../fakes/inbox-line-counter.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, eve, groupId, mainToken } from "./helpers.js";
import { groupKey, leadingMention, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const photo = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 2, 3, 4, 5]);
const mebibyte = 1024 * 1024;

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

async function sendFiles(world: WorldTelegram, input: Parameters<WorldTelegram["fake"]["userFiles"]>[1]) {
  const { update } = world.fake.userFiles(mainToken, input);
  await world.settle(update);
}

describe("files and images from a Telegram group", () => {
  it("a non-member's photo is not downloaded: their uploads cost no fetch and no storage", async () => {
    const alice = new ScriptedProvider(() => ({ text: "yes?" }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice", members: { telegram: [String(ana.id)] } },
    });
    await sendFiles(t, { chatId: groupId, from: eve, caption: "look at this", photo });
    expect(alice.requests).toHaveLength(0);
    expect(t.fake.callsTo("getFile")).toHaveLength(0);
    expect(t.fake.files.downloads).toEqual([]);
    const [message] = (await t.world.store.listMessages(groupKey)).filter((stored) => stored.author.kind === "human");
    expect(message?.text).toBe("look at this");
    expect(await t.world.store.messageFiles(message?.id ?? "")).toEqual([]);
  });

  it("a photo past the person's message rate is not downloaded: the flood is kept as text, the rate notice said", async () => {
    const alice = new ScriptedProvider(() => ({ text: "yes?" }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 1 } },
    });
    await t.say(ana, "first");
    await sendFiles(t, { chatId: groupId, from: ana, caption: "and look at this", photo });
    expect(alice.requests).toHaveLength(1);
    expect(t.botTexts().at(-1)).toMatch(/^Ana: you reached this world's limit of 1 messages a minute/);
    expect(t.fake.callsTo("getFile")).toHaveLength(0);
    expect(t.fake.files.downloads).toEqual([]);
    const stored = (await t.world.store.listMessages(groupKey)).filter((message) => message.author.kind === "human");
    expect(stored.map((message) => message.text)).toEqual(["first", "and look at this"]);
    expect(await t.world.store.messageFiles(stored[1]?.id ?? "")).toEqual([]);
  });

  it("a captioned photo is routed by its caption, stored with the message (largest size) and put in the workdir read-only", async () => {
    const alice = new ScriptedProvider(() => ({ text: "It shows an error." }));
    t = await worldOnTelegram({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: new ScriptedProvider(() => ({ text: "no" })) },
      ],
    });
    const caption = "@alice what does this show?";
    await sendFiles(t, { chatId: groupId, from: ana, caption, captionEntities: leadingMention(caption), photo });

    expect(t.botTexts()).toEqual(["alice: It shows an error."]);
    const [message] = (await t.world.store.listMessages(groupKey)).filter((stored) => stored.author.kind === "human");
    expect(message?.text).toBe("@alice what does this show?");
    expect(message?.fileCount).toBe(1);
    const files = await t.world.store.messageFiles(message?.id ?? "");
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ mediaType: "image/jpeg", size: photo.length });
    expect(files[0]?.name).toMatch(/^photo-AQAD\d+\.jpg$/);
    expect(Buffer.from(files[0]?.bytes ?? [])).toEqual(Buffer.from(photo));
    // getFile first, then the file endpoint: only the largest size was fetched.
    expect(t.fake.callsTo("getFile")).toHaveLength(1);
    expect(t.fake.files.downloads).toEqual([expect.stringMatching(/^photos\/file_\d+$/)]);
    const written = path.join(t.world.workdir, inboxPath(message?.id ?? "", files[0]?.name ?? ""));
    expect(readFileSync(written)).toEqual(Buffer.from(photo));
    expect(statSync(written).mode & 0o222).toBe(0);
    // The model got the image as image input and the file named with its workdir path.
    const last = alice.requests[0]?.messages.at(-1);
    expect(last).toEqual({
      role: "user",
      text: `Ana: @alice what does this show?\n[file ${files[0]?.name}, image/jpeg, 16 B, at ${inboxPath(message?.id ?? "", files[0]?.name ?? "")}]`,
      images: [{ mediaType: "image/jpeg", base64: Buffer.from(photo).toString("base64") }],
    });
  });

  it("with vision off the image is only named; a text file is inline with its name", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Two rows." }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      agentConfig: { alice: { vision: false } },
    });
    const caption = "@alice what is in these?";
    await sendFiles(t, {
      chatId: groupId,
      from: ana,
      caption,
      captionEntities: leadingMention(caption),
      photo,
      document: { bytes: new TextEncoder().encode("name,count\nalpha,1\n"), name: "counts.csv" },
    });
    expect(t.botTexts()).toEqual(["alice: Two rows."]);
    const last = alice.requests[0]?.messages.at(-1);
    expect(last?.role).toBe("user");
    expect(last && "images" in last).toBe(false);
    const text = last?.text ?? "";
    expect(text).toMatch(/\[file photo-AQAD\d+\.jpg, image\/jpeg, 16 B, at inbox\/[^\]]+\]/);
    expect(text).toContain("[file counts.csv, text/plain; charset=utf-8, 19 B, at inbox/");
    expect(text).toContain("--- counts.csv ---\nname,count\nalpha,1\n\n--- end of counts.csv ---");
  });

  it("a PDF reaches the model as document input, named with its workdir path", async () => {
    const alice = new ScriptedProvider(() => ({ text: "A one-page report." }));
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice }] });
    const caption = "@alice summarise this";
    const pdf = new TextEncoder().encode(
      "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
    );
    await sendFiles(t, {
      chatId: groupId,
      from: ana,
      caption,
      captionEntities: leadingMention(caption),
      document: { bytes: pdf, name: "report.pdf" },
    });
    expect(t.botTexts()).toEqual(["alice: A one-page report."]);
    const last = alice.requests[0]?.messages.at(-1);
    expect(last?.text).toMatch(
      new RegExp(`\\[file report\\.pdf, application/pdf, ${pdf.length} B, at inbox/[^\\]]+/report\\.pdf\\]$`),
    );
    expect(last && "documents" in last ? last.documents : undefined).toEqual([
      { name: "report.pdf", mediaType: "application/pdf", base64: Buffer.from(pdf).toString("base64"), pages: 1 },
    ]);
  });

  it("a CSV reaches a shell_cmd run through the inbox/ path the model was given; the asker approves, the count is answered", async () => {
    const { model: alice, paths } = inboxLineCounter("counts.csv");
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    const caption = "@alice how many rows?";
    await sendFiles(t, {
      chatId: groupId,
      from: ana,
      caption,
      captionEntities: leadingMention(caption),
      document: { bytes: new TextEncoder().encode(countsCsv), name: "counts.csv" },
    });
    const [message] = (await t.world.store.listMessages(groupKey)).filter((stored) => stored.author.kind === "human");
    const csvPath = inboxPath(message?.id ?? "", "counts.csv");
    expect(paths).toEqual([csvPath]);
    const card = t.botMessages().find((each) => each.reply_markup !== undefined);
    if (!card) throw new Error("no approval card");
    expect(card.text).toContain(csvPath);
    const approve = (card.reply_markup as Keyboard).inline_keyboard
      .flat()
      .find((each) => /Approve once/.test(each.text));
    await t.press(ana, card.message_id, approve?.callback_data ?? "");

    const result = alice.requests[1]?.messages.at(-1);
    expect(result?.role).toBe("tool");
    expect(result?.text).toMatch(new RegExp(`^exit code: 0\\nstdout:\\n\\s*3 ${csvPath}\\n`));
    expect(t.botTexts().at(-1)).toBe(`alice: wc says: exit code: 0 stdout: 3 ${csvPath} stderr: (empty)`);
  });

  it("a photo without a caption goes to the default agent", async () => {
    const alice = new ScriptedProvider(() => ({ text: "A picture." }));
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    await sendFiles(t, { chatId: groupId, from: ana, photo });
    expect(t.botTexts()).toEqual(["alice: A picture."]);
  });

  it("a 30 MiB file is refused with one line naming it, and the caption is still answered", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Here is the summary." }));
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice }] });
    const caption = "@alice summarise the log";
    await sendFiles(t, {
      chatId: groupId,
      from: ana,
      caption,
      captionEntities: leadingMention(caption),
      document: { bytes: new Uint8Array(30 * mebibyte), name: "server.log" },
    });
    const texts = t.botTexts();
    expect(texts).toContain("alice: Here is the summary.");
    const notices = texts.filter((text) => text.includes("server.log"));
    expect(notices).toEqual([
      "Not passed on to the agents: server.log (too big: over 20 MiB). The message itself was.",
    ]);
    // Announced too big: neither asked for nor downloaded.
    expect(t.fake.callsTo("getFile")).toHaveLength(0);
    expect(t.fake.files.downloads).toEqual([]);
    const [message] = (await t.world.store.listMessages(groupKey)).filter((stored) => stored.author.kind === "human");
    expect(await t.world.store.messageFiles(message?.id ?? "")).toEqual([
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
