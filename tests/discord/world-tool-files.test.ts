import { afterEach, describe, expect, it } from "vitest";
import { toolFilesMessageId } from "../../src/world/files/tool-files.js";
import { onePixelPng } from "../fakes/mcp-notes-tools.js";
import { notesWithoutApproval, picturingAgent } from "../fakes/picturing-agent.js";
import { type WorldDiscord, worldOnDiscord } from "./world-discord.js";

let t: WorldDiscord | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const alice = { name: "alice", displayName: "Alice Liddell", avatarUrl: "https://example.test/alice.png" };

async function world() {
  return worldOnDiscord({
    agents: [{ name: "alice", provider: picturingAgent(), tools: ["notes__*"] }],
    identities: [alice],
    world: { defaultAgent: "alice" },
    tools: notesWithoutApproval(),
  });
}

describe("files a tool gives, posted to a Discord channel", () => {
  it("an MCP server returning an image makes the chat receive an image file once (an attachment, through the webhook under the agent's name)", async () => {
    t = await world();
    await t.say(t.ana, "chart it");

    const posts = t.posts();
    expect(posts.map((post) => [post.content, post.attachments.map((file) => file.filename)])).toEqual([
      ["image-1.png from notes__picture", []],
      ["", ["image-1.png"]],
      ["here is the chart", []],
    ]);
    const image = posts[1];
    expect(image?.webhook_id).toBeDefined();
    expect(image?.author).toMatchObject({ username: "Alice Liddell", avatar: "https://example.test/alice.png" });
    expect(Buffer.from(image?.attachments[0]?.bytes ?? []).toString("base64")).toBe(onePixelPng);
    const [picture] = await t.world.store.listToolCalls({ chatKey: t.chatKeyOf(), agent: "alice" });
    const record = await t.world.store.getOutbound("message", toolFilesMessageId(picture?.id ?? ""));
    expect(record?.platformMessageIds).toEqual([posts[0]?.id, image?.id]);
  });

  it("from the bot where webhooks are not allowed: the agent's bold name, the file key's nonce", async () => {
    t = await world();
    await t.say(t.ana, "@alice chart it", { channelId: t.locked.id });

    const posts = t.posts(t.locked.id);
    expect(posts.map((post) => [post.content, post.attachments.map((file) => file.filename)])).toEqual([
      ["**Alice Liddell:** image-1.png from notes__picture", []],
      ["**Alice Liddell**", ["image-1.png"]],
      ["**Alice Liddell:** here is the chart", []],
    ]);
    expect(posts[1]?.nonce).toBeDefined();
    expect(posts[1]?.nonce).not.toBe(posts[0]?.nonce);
  });
});
