import { describe, expect, it } from "vitest";
import type { ChatRef } from "../../../src/world/chat-ref.js";
import { writeFiles } from "../../../src/world/delivery/file-writer.js";
import { fileKeyOf } from "../../../src/world/delivery/post-key.js";
import type { ChannelPrimitives, OutboundFile, SendPartOptions } from "../../../src/world/delivery/primitives.js";
import type { Author } from "../../../src/world/message.js";
import { MemoryChannel } from "./memory-channel.js";

const chat: ChatRef = { platform: "console", channel: "main" };
const alice: Author = { kind: "agent", id: "alice", name: "alice" };
const file = (name: string): OutboundFile => ({ name, mimeType: "text/plain", bytes: new TextEncoder().encode(name) });
const since = new Date(0);

/** The memory channel with `sendFile`: each file a message `file:<name>`, its key kept. */
function filesChannel() {
  const channel = new MemoryChannel() as MemoryChannel & ChannelPrimitives<string>;
  const sent: { name: string; key?: string; mayExist?: boolean }[] = [];
  channel.sendFile = async (_chat: ChatRef, _author: Author, posted: OutboundFile, options: SendPartOptions = {}) => {
    sent.push({ name: posted.name, ...(options.key ? { key: options.key.key, mayExist: options.key.mayExist } : {}) });
    return `f${sent.length}`;
  };
  return { channel, sent };
}

describe("a message's files (writeFiles)", () => {
  it("each under its file key, the ids so far recorded after each one", async () => {
    const { channel, sent } = filesChannel();
    const records: string[][] = [];
    const ids = await writeFiles(channel, chat, alice, [file("a"), file("b")], {
      key: { id: "m1", mayExist: false, since },
      record: async (now) => {
        records.push(now);
      },
    });
    expect(ids).toEqual(["f1", "f2"]);
    expect(sent).toEqual([
      { name: "a", key: "m1:file:0", mayExist: false },
      { name: "b", key: "m1:file:1", mayExist: false },
    ]);
    expect(records).toEqual([["f1"], ["f1", "f2"]]);
  });

  it("a run after a crash sends only the files not recorded, under the same keys", async () => {
    const { channel, sent } = filesChannel();
    const ids = await writeFiles(channel, chat, alice, [file("a"), file("b"), file("c")], {
      posted: ["x1"],
      key: { id: "m1", mayExist: true, since },
    });
    expect(ids).toEqual(["x1", "f1", "f2"]);
    expect(sent.map((each) => each.key)).toEqual(["m1:file:1", "m1:file:2"]);
    expect(sent.every((each) => each.mayExist)).toBe(true);
  });

  it("a channel without sendFile posts none", async () => {
    const channel = new MemoryChannel();
    expect(await writeFiles(channel, chat, alice, [file("a")])).toEqual([]);
    expect(channel.calls).toEqual([]);
  });

  it("a file key does not depend on the text's parts", () => {
    expect(fileKeyOf({ id: "m1", mayExist: false, since }, 3)).toEqual({ key: "m1:file:3", mayExist: false, since });
  });
});
