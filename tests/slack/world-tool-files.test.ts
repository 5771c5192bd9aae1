import { afterEach, describe, expect, it } from "vitest";
import { toolFilesMessageId } from "../../src/world/files/tool-files.js";
import { onePixelPng } from "../fakes/mcp-notes-tools.js";
import { notesWithoutApproval, picturingAgent } from "../fakes/picturing-agent.js";
import { ana, channel, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("files a tool gives, posted to Slack", () => {
  it("an MCP server returning an image makes the chat receive an image file once (files upload into the thread)", async () => {
    const alice = picturingAgent();
    t = await worldOnSlack({
      mode: "http",
      agents: [{ name: "alice", provider: alice, tools: ["notes__*"] }],
      tools: notesWithoutApproval(),
    });
    const asked = await t.say(ana, "@alice chart it");

    expect(t.replies(asked.ts).map((reply) => reply.text)).toEqual([
      "image-1.png from notes__picture",
      "here is the chart",
    ]);
    expect(t.fake.calls.filter((call) => call.method === "files.completeUploadExternal")).toHaveLength(1);
    expect(t.fake.files).toHaveLength(1);
    const [file] = t.fake.files;
    expect(file).toMatchObject({ filename: "image-1.png", channel, thread_ts: asked.ts, initialComment: "*alice*" });
    expect(Buffer.from(file?.bytes ?? []).toString("base64")).toBe(onePixelPng);
    const [picture] = await t.world.store.listToolCalls({ chatKey: threadKey(asked.ts), agent: "alice" });
    const record = await t.world.store.getOutbound("message", toolFilesMessageId(picture?.id ?? ""));
    expect(record?.platformMessageIds).toEqual([t.replies(asked.ts)[0]?.ts, file?.id]);
  });
  it("an image upload Slack keeps refusing is given up with one notice naming it; the text stays", async () => {
    const alice = picturingAgent();
    t = await worldOnSlack({
      mode: "http",
      agents: [{ name: "alice", provider: alice, tools: ["notes__*"] }],
      tools: notesWithoutApproval(),
      deliveryHoldMs: 400,
    });
    t.fake.failNext("files.getUploadURLExternal", { status: 200, error: "internal_error" }, 1_000);
    const asked = await t.say(ana, "@alice chart it");

    const notice =
      "1 file of a message from alice (image-1.png) could not be shown here: the platform kept refusing it. The details are in the service log.";
    expect(t.replies(asked.ts).map((reply) => reply.text)).toEqual([
      "image-1.png from notes__picture",
      notice,
      "here is the chart",
    ]);
    expect(t.fake.files).toHaveLength(0);
    const [picture] = await t.world.store.listToolCalls({ chatKey: threadKey(asked.ts), agent: "alice" });
    const record = await t.world.store.getOutbound("message", toolFilesMessageId(picture?.id ?? ""));
    expect(record?.platformMessageIds).toEqual([t.replies(asked.ts)[0]?.ts]);
  });
});
