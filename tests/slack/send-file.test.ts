import { webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { sendSlackFile } from "../../channels/slack/send-file.js";
import { alice, csv, png } from "../fakes/outbound-files.js";
import { FakeSlack } from "../fakes/slack-api.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("Slack: a file through files.getUploadURLExternal, the upload, files.completeUploadExternal", () => {
  it("uploads the bytes into the chat's thread with the caption, led by the agent's name, and returns the file id", async () => {
    const fake = await FakeSlack.start({ botToken: "xoxb-test", signingSecret: "s" });
    closers.push(() => fake.close());
    const client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl });
    const id = await sendSlackFile(
      client,
      { platform: "slack", channel: "C1", thread: "1700000000.000100" },
      alice,
      png,
    );
    expect(fake.calls.map((call) => call.method)).toEqual([
      "files.getUploadURLExternal",
      "files.completeUploadExternal",
    ]);
    expect(fake.calls[0]?.params).toMatchObject({ filename: "chart.png", length: String(png.bytes.length) });
    const [file] = fake.files;
    expect(id).toBe(file?.id);
    expect(file).toMatchObject({
      filename: "chart.png",
      title: "chart.png",
      channel: "C1",
      thread_ts: "1700000000.000100",
      initialComment: "*alice*: chart.png from notes__picture",
    });
    expect(Buffer.from(file?.bytes ?? []).equals(Buffer.from(png.bytes))).toBe(true);
  });

  it("a refusal is a platform error naming the call", async () => {
    const fake = await FakeSlack.start({ botToken: "xoxb-test", signingSecret: "s" });
    closers.push(() => fake.close());
    const client = new webApi.WebClient("xoxb-wrong", { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    await expect(sendSlackFile(client, { platform: "slack", channel: "C1" }, alice, csv)).rejects.toMatchObject({
      code: "platform.refused",
      message: expect.stringContaining("files.uploadV2"),
    });
  });
});
