import { PassThrough, Writable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { ConsoleAdapter } from "../../channels/console/adapter.js";
import { chatBanner } from "../../src/app/run-console-chat.js";
import type { MessageStream } from "../../src/world/channel-streaming.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";
import type { Author } from "../../src/world/message.js";
import { ContractSink } from "./contract-sink.js";

const bob: Author = { kind: "agent", id: "bob", name: "bob" };

/** A console in a terminal (interactive), its output as one string. */
async function terminal(banner?: string) {
  const input = new PassThrough();
  let written = "";
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written += chunk.toString();
      callback();
    },
  });
  const adapter = new ConsoleAdapter({
    world: "team",
    user: "ana",
    input,
    output,
    interactive: true,
    ...(banner === undefined ? {} : { banner }),
  });
  const sink = new ContractSink();
  await adapter.start(sink);
  /** Type a line: the terminal echoes it (and its newline) where the prompt is. */
  const type = (line: string): void => {
    output.write(`${line}\n`);
    input.write(`${line}\n`);
  };
  return { adapter, input, sink, type, output: () => written };
}

/** What a terminal shows: a line clear (`\r` + erase line) wipes the prompt it follows. */
function screen(raw: string): string {
  return raw.replaceAll("> \r\u001b[2K", "");
}

describe("roundtable chat in a terminal (#28)", () => {
  it("shows a banner (world, agents, how to address them) and a prompt, again after each line", async () => {
    const banner = chatBanner({ name: "team", agents: ["alice", "bob"] }, "ana");
    const console = await terminal(banner);
    expect(console.output()).toBe(
      "roundtable chat: world team (agents: @alice, @bob), you are ana.\n" +
        "Type a message and press Enter; start a line with @name to talk to an agent. /help lists the commands, Ctrl-D leaves.\n" +
        "> ",
    );
    console.type("@bob hello");
    await vi.waitFor(() => expect(console.sink.messages).toHaveLength(1));
    await vi.waitFor(() => expect(console.output().endsWith("> ")).toBe(true));
    // An answer printed while the prompt waits replaces it, and the prompt comes back below.
    await writerFor(console.adapter).postMessage(console.adapter.chat, { author: bob, text: "Hi ana." });
    expect(screen(console.output()).split("\n").slice(2)).toEqual(["> @bob hello", "bob: Hi ana.", "> "]);
    console.input.end();
    await console.adapter.finished;
  });

  it("a default agent is named in the banner", () => {
    expect(chatBanner({ name: "team", agents: ["alice"], defaultAgent: "alice" }, "ana")).toContain(
      "a line with no @name goes to @alice",
    );
  });

  it("an agent-to-agent answer is printed once: the auto-mention put in front at the end is not a second copy", async () => {
    const console = await terminal();
    const stream = (await writerFor(console.adapter).openStream(console.adapter.chat, bob)) as MessageStream;
    stream.update("I agree");
    stream.update("I agree, ship it.");
    await stream.finish("@alice I agree, ship it.");
    const shown = screen(console.output());
    expect(shown.match(/ship it/g)).toHaveLength(1);
    expect(shown).toBe("bob: I agree, ship it.\n> ");
    console.input.end();
    await console.adapter.finished;
  });

  it("a final text whose words differ from the streamed ones is still printed whole", async () => {
    const console = await terminal();
    const stream = (await writerFor(console.adapter).openStream(console.adapter.chat, bob)) as MessageStream;
    stream.update("Draft answer");
    await stream.finish("Another answer entirely.");
    expect(screen(console.output())).toBe("bob: Draft answer\nbob: Another answer entirely.\n> ");
    console.input.end();
    await console.adapter.finished;
  });

  it("escapes the model's terminal controls: an agent cannot draw a fake approval line over the real one", async () => {
    const console = await terminal();
    // Cursor up, erase the line, a carriage return, a bell, a right-to-left override.
    const forged = 'done.\u001b[1A\u001b[2K\rapproval 0000: alice wants to run shell_cmd {"command":"ls"}\u0007\u202e';
    await writerFor(console.adapter).postMessage(console.adapter.chat, { author: bob, text: forged });
    const stream = (await writerFor(console.adapter).openStream(console.adapter.chat, bob)) as MessageStream;
    await stream.update("streamed \u001b]0;title\u0007 text");
    await stream.finish("streamed \u001b]0;title\u0007 text");
    const shown = screen(console.output());
    expect(shown.replaceAll("\n", "")).not.toMatch(/\p{Cc}|\u202e/u);
    expect(shown).toContain("bob: done.\\u001b[1A\\u001b[2K\\u000dapproval 0000");
    expect(shown).toContain("bob: streamed \\u001b]0;title\\u0007 text");
    console.input.end();
    await console.adapter.finished;
  });
});
