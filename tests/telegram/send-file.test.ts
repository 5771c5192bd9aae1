import { Api } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { sendTelegramFile } from "../../channels/telegram/send-file.js";
import { alice, csv, png } from "../fakes/outbound-files.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("Telegram: sendPhoto for images, sendDocument for other files (multipart)", () => {
  async function telegram() {
    const fake = await FakeTelegramApi.start([{ token: "1:main", username: "roundtable_bot" }]);
    closers.push(() => fake.close());
    fake.addChat({ id: -100, type: "supergroup", title: "team", is_forum: true });
    return { fake, api: new Api("1:main", { apiRoot: fake.apiRoot }) };
  }

  it("an image is a photo in the topic, with an HTML caption led by the agent's bold name", async () => {
    const { fake, api } = await telegram();
    const id = await sendTelegramFile(api, { platform: "telegram", channel: "-100", thread: "7" }, alice, png);
    const sent = fake.message(-100, Number(id));
    expect(sent).toMatchObject({ text: "alice: chart.png from notes__picture", message_thread_id: 7 });
    expect(sent?.entities).toEqual([expect.objectContaining({ type: "bold", offset: 0, length: 5 })]);
    expect(Buffer.from(sent?.photo?.bytes ?? []).equals(Buffer.from(png.bytes))).toBe(true);
    expect(sent?.document).toBeUndefined();
  });

  it("any other file is a document under its name, replying where asked; a long caption is cut to 1024", async () => {
    const { fake, api } = await telegram();
    const long = { ...csv, caption: `<${"x".repeat(2000)}>` };
    const id = await sendTelegramFile(api, { platform: "telegram", channel: "-100" }, alice, long, { replyTo: "3" });
    const sent = fake.message(-100, Number(id));
    expect(sent?.document).toMatchObject({ file_name: "report.csv", content: "a,b\n1,2\n" });
    expect(sent?.photo).toBeUndefined();
    expect(sent?.text.length).toBe(1024);
    expect(sent?.text.startsWith("alice: <xxx")).toBe(true);
  });

  it("a file the fake cannot show as a photo is never sent with sendPhoto", async () => {
    const { fake, api } = await telegram();
    const notPng = { ...csv, name: "fake.png", mimeType: "application/octet-stream" };
    const id = await sendTelegramFile(api, { platform: "telegram", channel: "-100" }, alice, notPng);
    expect(fake.message(-100, Number(id))?.document?.file_name).toBe("fake.png");
  });
});
