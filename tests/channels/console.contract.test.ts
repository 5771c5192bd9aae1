import { PassThrough, Writable } from "node:stream";
import { ConsoleAdapter } from "../../channels/console/adapter.js";
import { type ChannelFixture, runChannelContract, type ShownMessage } from "./channel-contract.js";
import type { ContractSink } from "./contract-sink.js";

/** Waits (bounded) until `condition` holds; the console hands lines in asynchronously. */
async function until(condition: () => boolean): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 5_000) throw new Error("the console did not handle the line in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The console: lines typed on stdin, the chat printed on stdout. A posted message's id is the
 * number of the output line it starts on; the terminal has one reader, so what a command
 * answers (an approval's result) is the presser's private answer, not part of the chat.
 */
async function startConsole(sink: ContractSink): Promise<ChannelFixture> {
  const input = new PassThrough();
  const shown: ShownMessage[] = [];
  let lines = 0;
  let capturing: string[] | undefined;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const text = chunk.toString();
      if (capturing) capturing.push(text.replace(/\n$/, ""));
      else shown.push({ id: String(lines + 1), text: text.replace(/\n$/, ""), buttons: 0 });
      lines += [...text].filter((character) => character === "\n").length;
      callback();
    },
  });
  const adapter = new ConsoleAdapter({ world: "main", user: "ana", input, output, interactive: false });
  await adapter.start(sink);
  const type = async (line: string, handled: () => boolean) => {
    input.write(`${line}\n`);
    await until(handled);
  };
  return {
    adapter,
    chat: adapter.chat,
    person: { id: "ana", name: "ana" },
    async deliverMessage(text) {
      const before = sink.messages.length;
      await type(text, () => sink.messages.length > before);
      return { platformMessageId: sink.messages.at(-1)?.platformMessageId ?? "", raw: text };
    },
    async deliverClick(_sent, card, choice) {
      const before = sink.clicks.length;
      capturing = [];
      const answer = capturing;
      try {
        await type(`/approve ${choice} ${card.shortId}`, () => sink.clicks.length > before && answer.length > 0);
      } finally {
        capturing = undefined;
      }
      return { privateText: answer.join("\n") };
    },
    async shownMessages() {
      return shown.map((message) => ({ ...message }));
    },
    async close() {
      input.end();
      await adapter.finished;
      await adapter.stop();
    },
  };
}

runChannelContract({ name: "console", maxMessageLength: Number.POSITIVE_INFINITY, start: startConsole });
