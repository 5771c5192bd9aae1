import { afterEach, describe, expect, it } from "vitest";
import { toolFilesMessageId } from "../../src/world/files/tool-files.js";
import { onePixelPng } from "../fakes/mcp-notes-tools.js";
import { notesWithoutApproval, picturingAgent } from "../fakes/picturing-agent.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, groupId, mainToken } from "./helpers.js";
import { bobToken, group, groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The stored tool calls of alice in the group, oldest first. */
async function calls(world: WorldTelegram) {
  return world.world.store.listToolCalls({ chatKey: groupKey, agent: "alice" });
}

describe("files a tool gives, posted to a Telegram group", () => {
  it("an MCP server returning an image makes the chat receive an image file once (sendPhoto), after the line naming it", async () => {
    const alice = picturingAgent();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["notes__*"] }],
      tools: notesWithoutApproval(),
    });
    await t.say(ana, "@alice chart it");

    expect(t.fake.callsTo("sendPhoto")).toHaveLength(1);
    const messages = t.botMessages();
    expect(messages.map((message) => [message.text, message.photo === undefined ? "text" : "photo"])).toEqual([
      ["alice: image-1.png from notes__picture", "text"],
      ["alice", "photo"],
      ["alice: here is the chart", "text"],
    ]);
    const photo = messages[1];
    expect(Buffer.from(photo?.photo?.bytes ?? []).toString("base64")).toBe(onePixelPng);
    // The message's record: its text's id, then its file's.
    const [picture] = await calls(t);
    const filesMessageId = toolFilesMessageId(picture?.id ?? "");
    const record = await t.world.store.getOutbound("message", filesMessageId);
    expect(record?.platformMessageIds).toEqual([String(messages[0]?.message_id), String(photo?.message_id)]);
    expect(await t.world.store.getOutbound("files", filesMessageId)).toBeUndefined();
    expect(await t.world.store.getOutbound("draft", filesMessageId)).toBeUndefined();

    // Published again (a re-run of the step after a crash): the chat still has the photo once.
    const stored = await t.world.store.getMessage(filesMessageId);
    await t.world.roundtable.engine.outbox.publish(groupKey, {
      type: "message",
      chat: group,
      message: stored as NonNullable<typeof stored>,
      rerun: true,
    });
    await t.world.idle();
    expect(t.fake.callsTo("sendPhoto")).toHaveLength(1);
    expect(t.botMessages()).toHaveLength(3);
  });

  it("an agent with its own bot posts the photo from that bot, without its name in the caption", async () => {
    const bob = picturingAgent("done");
    t = await worldOnTelegram({
      agents: [{ name: "bob", provider: bob, tools: ["notes__*"] }],
      tools: notesWithoutApproval(),
      world: { defaultAgent: "bob" },
      agentConfig: { bob: { telegram: { token: bobToken } } },
      extraBots: [{ token: bobToken, username: "bob_rt_bot", firstName: "Bob", canReadAllGroupMessages: true }],
      adapter: { agentBots: [{ agent: "bob", token: bobToken }] },
    });
    await t.say(ana, "chart it");

    expect(t.fake.callsTo("sendPhoto", bobToken)).toHaveLength(1);
    expect(t.fake.callsTo("sendPhoto", mainToken)).toHaveLength(0);
    const photo = t.botMessages().find((message) => message.photo !== undefined);
    expect(photo).toMatchObject({ sentByToken: bobToken, text: "" });
  });

  it("a delivery killed after its first file is posted posts no file twice when it runs again", async () => {
    const alice = new ScriptedProvider((request) => {
      if (request.messages.at(-1)?.role === "tool") return { text: "both written" };
      const script = "mkdir -p outbox && printf 'a,b\\n1,2\\n' > outbox/a.csv && printf 'c,d\\n3,4\\n' > outbox/b.csv";
      return { toolCalls: [{ name: "shell_cmd", args: { command: "sh", args: ["-c", script] } }] };
    });
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      tools: { approval: { shell_cmd: "never" } },
    });
    // The first attempt dies right after the first file's id is stored (before the second file).
    const store = t.world.store;
    const record = store.recordOutbound.bind(store);
    let died = false;
    store.recordOutbound = async (...records) => {
      await record(...records);
      if (!died && records.some((each) => each.refKind === "files" && each.platformMessageIds.length === 1)) {
        died = true;
        throw new Error("killed after posting the first file");
      }
    };
    await t.say(ana, "@alice write both");

    expect(died).toBe(true);
    const documents = t.fake.callsTo("sendDocument");
    expect(documents).toHaveLength(2);
    const messages = t.botMessages();
    expect(messages.map((message) => message.document?.file_name ?? message.text)).toEqual([
      "alice: a.csv, b.csv from shell_cmd",
      "a.csv",
      "b.csv",
      "alice: both written",
    ]);
    const [write] = await calls(t);
    const filesMessageId = toolFilesMessageId(write?.id ?? "");
    expect((await store.getOutbound("message", filesMessageId))?.platformMessageIds).toEqual(
      messages.slice(0, 3).map((message) => String(message.message_id)),
    );
    expect(t.fake.messagesIn(groupId).filter((message) => message.from.is_bot)).toHaveLength(4);
  });
  it("a file Telegram keeps refusing is given up with a notice naming it, once, after the text and the other file", async () => {
    const alice = new ScriptedProvider((request) => {
      if (request.messages.at(-1)?.role === "tool") return { text: "both written" };
      const script = "mkdir -p outbox && printf 'a,b\\n1,2\\n' > outbox/a.csv && printf 'c,d\\n3,4\\n' > outbox/b.csv";
      return { toolCalls: [{ name: "shell_cmd", args: { command: "sh", args: ["-c", script] } }] };
    });
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      tools: { approval: { shell_cmd: "never" } },
      deliveryHoldMs: 400,
    });
    // The first document goes through, every later one is refused.
    t.fake.failNext(
      "sendDocument",
      { error_code: 400, description: "Bad Request: failed to upload" },
      { after: 1, times: 1_000 },
    );
    // The first give-up dies before its records are written (after the notice is stored): the
    // delivery runs again, gives up again, and the notice is not shown twice.
    const store = t.world.store;
    const record = store.recordOutbound.bind(store);
    let died = false;
    store.recordOutbound = async (...records) => {
      if (!died && records.some((each) => each.refKind === "message" && each.refId.endsWith(":tool-files"))) {
        died = true;
        throw new Error("killed after giving up");
      }
      await record(...records);
    };
    await t.say(ana, "@alice write both");
    // The killed delivery runs again after the queue's retry delay.
    const [write] = await calls(t);
    const filesMessageId = toolFilesMessageId(write?.id ?? "");
    await t.world.waitFor(async () => (await store.getOutbound("message", filesMessageId)) !== undefined, 10_000);
    await t.world.idle();

    expect(died).toBe(true);
    const notice =
      "1 file of a message from alice (b.csv) could not be shown here: the platform kept refusing it. The details are in the service log.";
    expect(t.botMessages().map((message) => message.document?.file_name ?? message.text)).toEqual([
      "alice: a.csv, b.csv from shell_cmd",
      "a.csv",
      notice,
      "alice: both written",
    ]);
    // The message's record keeps what was shown: its text and the one file.
    const shown = t.botMessages().slice(0, 2);
    expect((await store.getOutbound("message", filesMessageId))?.platformMessageIds).toEqual(
      shown.map((message) => String(message.message_id)),
    );

    // Published again (a re-run of the step): nothing more is posted, the notice stays one.
    const stored = await store.getMessage(filesMessageId);
    const documents = t.fake.callsTo("sendDocument").length;
    await t.world.roundtable.engine.outbox.publish(groupKey, {
      type: "message",
      chat: group,
      message: stored as NonNullable<typeof stored>,
      rerun: true,
    });
    await t.world.idle();
    expect(t.fake.callsTo("sendDocument")).toHaveLength(documents);
    expect(t.botTexts().filter((text) => text === notice)).toHaveLength(1);
    expect(t.botMessages()).toHaveLength(4);
  });
});
