import { describe, expect, it } from "vitest";
import { writerFor } from "../../../src/world/delivery/channel-writer.js";
import type { NativeStreamSetup } from "../../../src/world/delivery/primitives.js";
import type { SentRef } from "../../../src/world/outbound-text.js";
import { alice, chat, MemoryAdapter } from "./memory-channel.js";

describe("writerFor: the world's view of a channel", () => {
  it("is one writer per adapter (streams of one adapter share its pace table)", () => {
    const adapter = new MemoryAdapter();
    expect(writerFor(adapter)).toBe(writerFor(adapter));
  });

  it("can edit exactly where the channel can", () => {
    expect(writerFor(new MemoryAdapter(20, true)).canEdit).toBe(true);
    const printing = writerFor(new MemoryAdapter(20, false));
    expect(printing.canEdit).toBe(false);
  });

  it("posts through the primitives, and edits and removes from stored ids alone", async () => {
    const adapter = new MemoryAdapter();
    const writer = writerFor(adapter);
    const sent = await writer.postMessage(chat, { author: alice, text: "Half of the ans" });
    const edited = await writer.editMessage(chat, sent, { author: alice, text: "Half of the answer, then all." });
    expect(edited.ids[0]).toBe(sent.ids[0]);
    expect(adapter.texts()).toEqual(["Half of the answer,", "then all."]);
    await writer.deleteMessages(chat, edited);
    expect(adapter.messages).toEqual([]);
  });

  it("posts answers whole where the channel does not stream, and hands a native stream the key and a record", async () => {
    const adapter = new MemoryAdapter();
    expect(await writerFor(adapter).openStream(chat, alice)).toBeUndefined();
    const setups: NativeStreamSetup[] = [];
    adapter.mode = {
      kind: "native",
      open: (setup) => {
        setups.push(setup);
        return {
          update: () => {},
          hold: async () => {},
          finish: async () => ({ ids: ["n1"] }),
          abort: async () => {},
        };
      },
    };
    const recorded: SentRef[] = [];
    const postKey = { id: "t1#1", mayExist: true, since: new Date(0) };
    const stream = await writerFor(adapter).openStream(chat, alice, {
      posted: async (sent) => {
        recorded.push(sent);
      },
      postKey,
    });
    await setups[0]?.record({ ids: ["n1"] });
    expect(setups[0]?.key).toBe(postKey);
    expect(recorded).toEqual([{ ids: ["n1"] }]);
    expect(await stream?.finish("done")).toEqual({ ids: ["n1"] });
  });
});
