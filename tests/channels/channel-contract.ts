/**
 * The channel contract every adapter passes against its fake platform.
 *
 * To add a platform: write `tests/channels/<platform>.contract.test.ts` that calls
 * `runChannelContract({ name, maxMessageLength, start })`, where `maxMessageLength` is the longest
 * text one platform message holds and `start(sink)` starts the platform's fake server and the
 * real adapter on it (`adapter.start(sink)`), and returns a {@link ChannelFixture}.
 * Each `deliver…` resolves once the adapter has handled the delivery (handed it to the sink,
 * answered it, or decided to drop it), so the suite never sleeps. See
 * `tests/channels/telegram.contract.test.ts` for a complete fixture.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalCard, ApprovalOutcome } from "../../src/world/approval-types.js";
import type { ChannelAdapter, OutboundText, SentRef } from "../../src/world/channel-adapter.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import { type ChannelWriter, writerFor } from "../../src/world/delivery/channel-writer.js";
import type { ApprovalChoice } from "../../src/world/inbound.js";
import { ContractSink } from "./contract-sink.js";

/** One message as the platform's chat shows it now. */
export interface ShownMessage {
  id: string;
  /** The visible text (markup removed). */
  text: string;
  /** How many buttons it carries. */
  buttons: number;
}

/** A delivered inbound message, so the platform can deliver it again. */
export interface Delivered {
  platformMessageId: string;
  /** Whatever the fixture needs to redeliver it (the raw update or event). */
  raw: unknown;
}

export interface ChannelFixture {
  adapter: ChannelAdapter;
  /** A group chat on the fake that the adapter posts to and people write in. */
  chat: ChatRef;
  /** A person in that chat. */
  person: { id: string; name: string };
  /** The person writes `text`; resolves once the adapter has handled it. */
  deliverMessage(text: string): Promise<Delivered>;
  /** The platform delivers the same message again (a retry). Leave it out where nothing is redelivered. */
  redeliver?(delivered: Delivered): Promise<void>;
  /**
   * The platform shows the service's own post `sent` to the adapter as input (an echo). Leave
   * it out where the service's posts never come back (the console).
   */
  deliverOwnEcho?(sent: SentRef, text: string): Promise<void>;
  /**
   * The person presses (or types) `choice` on the card posted at `sent`. Resolves once the
   * platform got the adapter's answer, with the text the presser alone was shown (undefined if
   * none); that text is not part of what the chat shows afterwards.
   */
  deliverClick(sent: SentRef, card: ApprovalCard, choice: ApprovalChoice): Promise<{ privateText?: string }>;
  /**
   * A request signed wrongly (or not at all); resolves with the HTTP status the adapter
   * answered. Leave it out when the platform signs nothing the adapter receives.
   */
  deliverBadSignature?(): Promise<number>;
  /** The chat's messages in order (deleted ones left out). */
  shownMessages(): Promise<ShownMessage[]>;
  close(): Promise<void>;
}

export interface ChannelFixtureFactory {
  name: string;
  /** Longest text one platform message holds (characters; infinite where none): longer texts are split to fit. */
  maxMessageLength: number;
  start(sink: ContractSink): Promise<ChannelFixture>;
}

const agent = { kind: "agent", id: "alice", name: "alice", displayName: "Alice" } as const;

function card(): ApprovalCard {
  return {
    approvalId: "appr-7f3a9c",
    shortId: "7f3a",
    agent: "alice",
    tool: "shell_cmd",
    argumentsJson: '{"command":"ls"}',
    argumentsPreview: '{\n  "command": "ls"\n}',
    reason: "shell_cmd needs approval",
    requestedFor: "Ana",
    choices: ["once", "session", "deny"],
    expiresAt: new Date(Date.now() + 30 * 60_000),
  };
}

function outcome(): ApprovalOutcome {
  return {
    approvalId: "appr-7f3a9c",
    shortId: "7f3a",
    agent: "alice",
    tool: "shell_cmd",
    argumentsPreview: '{"command":"ls"}',
    state: "approved",
    choice: "once",
    decidedBy: { id: "111", name: "Ana" },
    at: new Date(),
  };
}

function byId(shown: ShownMessage[], id: string | undefined): ShownMessage | undefined {
  return shown.find((message) => message.id === id);
}

/** Words of a text, for comparing what a platform shows with what was sent (markup differs). */
function words(text: string): string[] {
  return text.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "");
}

export function runChannelContract(factory: ChannelFixtureFactory): void {
  describe(`channel contract: ${factory.name}`, () => {
    let sink: ContractSink;
    let fixture: ChannelFixture;
    let adapter: ChannelAdapter;
    /** The world's view of the adapter: what the world calls to post, edit, stream. */
    let writer: ChannelWriter;

    beforeEach(async () => {
      sink = new ContractSink();
      fixture = await factory.start(sink);
      adapter = fixture.adapter;
      writer = writerFor(adapter);
    });

    afterEach(async () => {
      await fixture.close();
    });

    it("states who it is and what it can do", () => {
      expect(adapter.id).not.toBe("");
      expect(factory.maxMessageLength).toBeGreaterThan(0);
      expect(writer.canEdit).toBe(adapter.capabilities.canEdit);
    });

    it("posts a message the chat shows, under the agent's name", async () => {
      const message: OutboundText = { author: agent, text: "The release is **ready** for review." };
      const sent = await writer.postMessage(fixture.chat, message);
      expect(sent.ids).toHaveLength(1);
      const shown = byId(await fixture.shownMessages(), sent.ids[0]);
      expect(words(shown?.text ?? "")).toEqual(expect.arrayContaining(words(message.text)));
      expect(shown?.buttons).toBe(0);
    });

    it("splits a text longer than one message into parts that each fit, losing nothing", async () => {
      const limit = factory.maxMessageLength;
      const size = Number.isFinite(limit) ? Math.ceil(limit * 2.5) : 12_000;
      const paragraphs: string[] = [];
      for (let index = 0; paragraphs.join("\n\n").length < size; index += 1) {
        paragraphs.push(`Paragraph ${index} says something worth keeping in every part.`);
      }
      const text = paragraphs.join("\n\n");
      const sent = await writer.postMessage(fixture.chat, { author: agent, text });
      const shown = await fixture.shownMessages();
      const parts = sent.ids.map((id) => byId(shown, id));
      if (Number.isFinite(limit)) expect(sent.ids.length).toBeGreaterThanOrEqual(3);
      for (const part of parts) expect(part?.text.length ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(limit);
      const all = parts.map((part) => part?.text ?? "").join("\n");
      for (let index = 0; index < paragraphs.length; index += 1) expect(all).toContain(`Paragraph ${index} says`);
    });

    it("streams an answer and finishes it: the final text shows once, where the stream was", async () => {
      const recorded: SentRef[] = [];
      const stream = await writer.openStream(fixture.chat, agent, {
        posted: async (sent) => {
          recorded.push(sent);
        },
      });
      // Undefined where the channel posts answers whole.
      if (!stream) return;
      stream.update("Checking the");
      stream.update("Checking the build logs");
      const final = "Checking the build logs: all green, ready to ship.";
      const sent = await stream.finish(final);
      const shown = await fixture.shownMessages();
      const finals = shown.filter((message) => message.text.includes("all green, ready to ship"));
      expect(finals.map((message) => message.id)).toEqual(sent.ids);
      // No half-written message is left behind.
      expect(
        shown.filter((message) => message.text.includes("Checking the") && !sent.ids.includes(message.id)),
      ).toEqual([]);
      // Every platform message the stream made was reported the moment it existed.
      for (const ref of recorded) for (const id of ref.ids) expect(sent.ids).toContain(id);
    });

    it("finishes a message from its stored ids alone (another process ends a recorded stream)", async () => {
      if (!writer.canEdit) return;
      const draft = await writer.postMessage(fixture.chat, { author: agent, text: "Half of the ans" });
      const final = "Half of the answer, and now the whole of it.";
      const sent = await writer.editMessage(fixture.chat, { ids: [...draft.ids] }, { author: agent, text: final });
      expect(sent.ids[0]).toBe(draft.ids[0]);
      const shown = await fixture.shownMessages();
      expect(byId(shown, draft.ids[0])?.text).toContain("and now the whole of it");
      expect(shown.filter((message) => message.text.includes("Half of the"))).toHaveLength(1);
      await writer.deleteMessages(fixture.chat, sent);
      expect(byId(await fixture.shownMessages(), draft.ids[0])).toBeUndefined();
    });

    it("posts an approval card with its choices and updates it to the outcome without buttons", async () => {
      const sent = await writer.postApprovalCard(fixture.chat, card());
      const posted = byId(await fixture.shownMessages(), sent.ids[0]);
      expect(posted?.text).toContain("shell_cmd");
      expect(posted?.text).toContain("alice");
      if (adapter.capabilities.identifiesClickers) expect(posted?.buttons).toBe(3);
      await writer.updateApprovalCard(fixture.chat, sent, outcome());
      const shown = await fixture.shownMessages();
      const updated = adapter.capabilities.canEdit ? byId(shown, sent.ids[0]) : shown.at(-1);
      expect(updated?.text).toMatch(/approved/i);
      expect(updated?.buttons).toBe(0);
    });

    it("hands a press in as a decision (approval id, choice, who) and shows the presser the answer", async () => {
      const shownCard = card();
      const sent = await writer.postApprovalCard(fixture.chat, shownCard);
      sink.clickResult = { status: "decided", text: "Approved once." };
      const answer = await fixture.deliverClick(sent, shownCard, "once");
      expect(sink.clicks).toHaveLength(1);
      expect(sink.clicks[0]).toMatchObject({ choice: "once", user: { id: fixture.person.id } });
      // The opaque id from a button, or the short id typed where there are no buttons.
      expect([shownCard.approvalId, shownCard.shortId]).toContain(sink.clicks[0]?.approvalId);
      expect(sink.clicks[0]?.chat).toEqual(fixture.chat);
      expect(answer.privateText).toBe("Approved once.");
    });

    it("refuses a press by someone not allowed privately: the chat shows nothing new", async () => {
      const shownCard = card();
      const sent = await writer.postApprovalCard(fixture.chat, shownCard);
      const before = await fixture.shownMessages();
      sink.clickResult = { status: "not-allowed", text: "You are not allowed to decide this approval." };
      const answer = await fixture.deliverClick(sent, shownCard, "deny");
      expect(answer.privateText).toBe("You are not allowed to decide this approval.");
      expect(await fixture.shownMessages()).toEqual(before);
    });

    it("hands a message in with the chat, the sender and the platform's id", async () => {
      const delivered = await fixture.deliverMessage("@alice is the build green?");
      expect(sink.input()).toHaveLength(1);
      const message = sink.input()[0];
      expect(message?.chat).toEqual(fixture.chat);
      expect(message?.text).toBe("@alice is the build green?");
      expect(message?.sender).toMatchObject({ id: fixture.person.id, isBot: false });
      expect(message?.platformMessageId).toBe(delivered.platformMessageId);
    });

    it("a duplicate delivery carries the same platform id, so the world drops it", async () => {
      if (!fixture.redeliver) return;
      const delivered = await fixture.deliverMessage("only once, please");
      await fixture.redeliver(delivered);
      const ids = sink.input().map((message) => message.platformMessageId);
      expect(ids.length).toBeGreaterThanOrEqual(1);
      expect(new Set(ids)).toEqual(new Set([delivered.platformMessageId]));
    });

    it("an echo of its own post is never handed in as new input", async () => {
      if (!fixture.deliverOwnEcho) return;
      const sent = await writer.postMessage(fixture.chat, { author: agent, text: "@bob over to you" });
      await fixture.deliverOwnEcho(sent, "@bob over to you");
      expect(sink.input()).toEqual([]);
    });

    it("refuses a badly signed request and hands nothing in", async () => {
      if (!fixture.deliverBadSignature) return;
      const status = await fixture.deliverBadSignature();
      expect([401, 403]).toContain(status);
      expect(sink.messages).toEqual([]);
      expect(sink.clicks).toEqual([]);
    });
  });
}
