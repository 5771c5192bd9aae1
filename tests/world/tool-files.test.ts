import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentRuntime, TurnScope } from "../../src/agents/agent-runtime.js";
import { postToolFiles } from "../../src/agents/post-tool-files.js";
import { inboxPath } from "../../src/world/files/inbound-files.js";
import { toolFilesMessageId } from "../../src/world/files/tool-files.js";
import { onePixelPng, reportCsvBase64 } from "../fakes/mcp-notes-tools.js";
import { notesServerCommand } from "../fakes/mcp-notes-command.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The stored tool calls of the chat, oldest first. */
async function toolCalls(h: Harness) {
  return h.store.listToolCalls({ chatKey: `${h.chat().platform}::${h.chat().channel}:`, agent: "alice" });
}

describe("files a tool gives reach the chat", () => {
  it("an MCP image and resource blob become one agent message with the files, once, and the model reads the result text", async () => {
    const alice = new ScriptedProvider((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool" && last.toolName === "notes__picture")
        return { toolCalls: [{ name: "notes__report", args: {} }] };
      if (last?.role === "tool") return { text: "here you are" };
      return { toolCalls: [{ name: "notes__picture", args: {} }] };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["notes__*"] }],
      platform: "telegram",
      tools: { mcpServers: { notes: notesServerCommand() }, approval: { "notes__*": "never" } },
    });
    await harness.say("@alice chart it", { user: "ana" });
    await harness.idle();
    const calls = await toolCalls(harness);
    expect(calls.map((call) => call.name)).toEqual(["notes__picture", "notes__report"]);
    const [picture, report] = calls;
    const pictureId = toolFilesMessageId(picture?.id ?? "");
    const reportId = toolFilesMessageId(report?.id ?? "");
    // Stored as the agent's messages, with the bytes, typed from them.
    const stored = await harness.store.getMessage(pictureId);
    expect(stored).toMatchObject({ author: { kind: "agent", name: "alice" }, text: "image-1.png from notes__picture" });
    expect(stored?.fileCount).toBe(1);
    const [png] = await harness.store.messageFiles(pictureId);
    expect(png).toMatchObject({ name: "image-1.png", mediaType: "image/png" });
    expect(Buffer.from(png?.bytes ?? []).toString("base64")).toBe(onePixelPng);
    const [csv] = await harness.store.messageFiles(reportId);
    expect(csv).toMatchObject({ name: "q3_sales.csv", mediaType: "text/plain; charset=utf-8" });
    expect(Buffer.from(csv?.bytes ?? []).toString("base64")).toBe(reportCsvBase64);
    // In the workdir like an inbound message's files.
    expect(existsSync(path.join(harness.workdir, inboxPath(pictureId, "image-1.png")))).toBe(true);
    // The chat got each file message once, then the answer.
    const texts = harness.channel.messages().map((message) => message.text);
    expect(texts).toEqual(["image-1.png from notes__picture", "q3_sales.csv from notes__report", "here you are"]);
    // The model read the tool's text plus the line naming what was posted, and no extra assistant message.
    const last = alice.requests.at(-1);
    const toolTexts = last?.messages.filter((message) => message.role === "tool").map((message) => message.text);
    expect(toolTexts?.[0]).toMatch(
      /^a dot\n\[image image\/png, \d+ bytes\]\n\[files posted to the chat: image-1\.png \(image\/png, \d+ B\)\]$/,
    );
    expect(toolTexts?.[1]).toContain("[files posted to the chat: q3_sales.csv (text/plain; charset=utf-8, 31 B)]");
    const assistantTexts = last?.messages
      .filter((message) => message.role === "assistant")
      .map((message) => message.text);
    expect(assistantTexts?.some((text) => text.includes("from notes__"))).toBe(false);

    // Run again for the same call (a re-run after a crash): nothing more is stored; the message
    // is published again (the run before may have died first), and the chat still shows it once.
    const runtime = {
      world: harness.roundtable.engine.context,
      outbox: harness.roundtable.engine.outbox,
    } as unknown as AgentRuntime;
    const scope = { world: { name: "main", workdir: harness.workdir } } as unknown as TurnScope;
    const again = await postToolFiles(
      runtime,
      scope,
      picture as NonNullable<typeof picture>,
      [{ name: "image-1.png", bytes: Buffer.from(onePixelPng, "base64") }],
      harness.workdir,
    );
    await harness.idle();
    expect(again).toMatch(/^\[files posted to the chat: image-1\.png/);
    expect(harness.channel.messages().map((message) => message.text)).toEqual(texts);
    expect((await harness.store.listMessages(stored?.chatKey ?? "")).filter((m) => m.id === pictureId)).toHaveLength(1);
  });

  it("a file shell_cmd writes to outbox/ is posted once and its outbox taken, so the next call posts nothing", async () => {
    const alice = new ScriptedProvider((request) => {
      const tools = request.messages.filter((message) => message.role === "tool").length;
      if (tools === 0)
        return {
          toolCalls: [
            {
              name: "shell_cmd",
              args: { command: "sh", args: ["-c", "mkdir -p outbox && printf 'a,b\\n1,2\\n' > outbox/report.csv"] },
            },
          ],
        };
      if (tools === 1) return { toolCalls: [{ name: "shell_cmd", args: { command: "ls", args: ["outbox"] } }] };
      return { text: "done" };
    });
    harness = await createHarness({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      platform: "telegram",
      tools: { approval: { shell_cmd: "never" } },
    });
    await harness.say("@alice write the report", { user: "ana" });
    await harness.idle();
    const [write, list] = await toolCalls(harness);
    const files = await harness.store.messageFiles(toolFilesMessageId(write?.id ?? ""));
    expect(files.map((file) => [file.name, file.mediaType, Buffer.from(file.bytes ?? []).toString()])).toEqual([
      ["report.csv", "text/plain; charset=utf-8", "a,b\n1,2\n"],
    ]);
    expect(await harness.store.getMessage(toolFilesMessageId(list?.id ?? ""))).toBeUndefined();
    // Its outbox is taken (the next call saw an empty one of its own) and nothing is left in the workdir.
    expect(readdirSync(path.join(harness.workdir, "outbox"))).toEqual([]);
    expect(existsSync(path.join(harness.workdir, "outbox-posted"))).toBe(false);
    expect(harness.channel.messages().map((message) => message.text)).toEqual(["report.csv from shell_cmd", "done"]);
  });
});
