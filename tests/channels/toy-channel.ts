/**
 * A toy channel built only from the delivery primitives (docs/architecture.md, "Adding a
 * channel"): what a new platform costs. The platform is a list of messages with buttons; people
 * write and press through `ToyPlatform.deliver`. Posting once, parts, streams and cards are the
 * world's (src/world/delivery/).
 */
import type { ApprovalCard, ApprovalOutcome } from "../../src/world/approval-types.js";
import type { ChannelAdapter, ChannelCapabilities, OutboundText } from "../../src/world/channel-adapter.js";
import type { ChatRef } from "../../src/world/chat-ref.js";
import type { ChannelPrimitives, SendPartOptions, StreamMode } from "../../src/world/delivery/primitives.js";
import type { ApprovalChoice, InboundSink, Sender } from "../../src/world/inbound.js";
import type { Author } from "../../src/world/message.js";

export interface ToyMessage {
  id: string;
  fromBot: boolean;
  text: string;
  /** `<approval id>:<choice>` per button. */
  buttons: string[];
}

export type ToyEvent =
  | { kind: "message"; id: string; from: Sender; text: string }
  | { kind: "press"; id: string; from: Sender; button: string };

/** The platform: one chat's messages, and a hook the bot listens on. */
export class ToyPlatform {
  readonly messages: ToyMessage[] = [];
  listener: ((event: ToyEvent) => Promise<string | undefined>) | undefined;
  private next = 0;

  post(text: string, buttons: string[] = [], fromBot = true): string {
    this.next += 1;
    const id = `toy-${this.next}`;
    this.messages.push({ id, fromBot, text, buttons });
    return id;
  }

  find = (id: string): ToyMessage | undefined => this.messages.find((message) => message.id === id);

  /** A person (or the bot's own post coming back) reaches the bot; resolves with its private answer. */
  async deliver(event: ToyEvent): Promise<string | undefined> {
    return this.listener?.(event);
  }
}

/** Longest text one toy message holds. */
export const toyMessageLimit = 300;

/** A part is the text of one platform message, the author's name in front. */
export class ToyChannel implements ChannelAdapter, ChannelPrimitives<string> {
  readonly id = "toy";
  readonly platform = "console" as const;
  readonly chat: ChatRef = { platform: "console", workspace: "main", channel: "toy" };
  readonly capabilities: ChannelCapabilities = {
    canEdit: true,
    identifiesClickers: true,
    chatsNameTheirWorld: true,
  };
  private connected = false;

  constructor(private readonly toy: ToyPlatform) {}

  async start(sink: InboundSink): Promise<void> {
    this.connected = true;
    this.toy.listener = async (event) => {
      if (event.kind === "message") {
        const ownEcho = this.toy.find(event.id)?.fromBot === true;
        const base = { chat: this.chat, platformMessageId: event.id, sender: event.from, text: event.text };
        await sink.message({
          ...base,
          mentions: [],
          receivedAt: new Date(),
          raw: event,
          ...(ownEcho ? { ownEcho } : {}),
        });
        return undefined;
      }
      const [approvalId = "", choice] = event.button.split(":");
      const click = { chat: this.chat, approvalId, choice: choice as ApprovalChoice, user: event.from };
      return (await sink.click({ ...click, platformEventId: event.id, raw: event })).text;
    };
  }

  async stop(): Promise<void> {
    this.connected = false;
    this.toy.listener = undefined;
  }

  isConnected = (): boolean => this.connected;

  async renderParts(_chat: ChatRef, message: OutboundText): Promise<string[]> {
    const name = `${message.author.displayName ?? message.author.name}: `;
    const parts: string[] = [];
    let rest = message.text.trim();
    while (name.length + rest.length > toyMessageLimit) {
      const room = toyMessageLimit - name.length;
      const cut = Math.max(rest.lastIndexOf(" ", room), 1);
      parts.push(name + rest.slice(0, cut));
      rest = rest.slice(cut).trimStart();
    }
    return [...parts, name + rest];
  }

  samePart = (left: string, right: string): boolean => left === right;

  async sendPart(_chat: ChatRef, _author: Author, part: string, _options?: SendPartOptions): Promise<string> {
    return this.toy.post(part);
  }

  async editPart(_chat: ChatRef, _author: Author, id: string, part: string): Promise<"edited" | "gone"> {
    const message = this.toy.find(id);
    if (!message) return "gone";
    message.text = part;
    return "edited";
  }

  async deletePart(_chat: ChatRef, _author: Author, id: string): Promise<void> {
    const index = this.toy.messages.findIndex((message) => message.id === id);
    if (index >= 0) this.toy.messages.splice(index, 1);
  }

  async sendCard(_chat: ChatRef, card: ApprovalCard): Promise<{ id: string }> {
    const text = `${card.agent} wants to run ${card.tool} ${card.argumentsJson} (${card.shortId})`;
    return {
      id: this.toy.post(
        text,
        card.choices.map((choice) => `${card.approvalId}:${choice}`),
      ),
    };
  }

  async editCard(_chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone"> {
    const message = this.toy.find(id);
    if (!message) return "gone";
    message.text = await this.renderOutcome(this.chat, outcome);
    message.buttons = [];
    return "edited";
  }

  async renderOutcome(_chat: ChatRef, outcome: ApprovalOutcome): Promise<string> {
    return `${outcome.tool} (${outcome.shortId}): ${outcome.state}${outcome.decidedBy ? ` by ${outcome.decidedBy.name}` : ""}`;
  }

  streamMode(): StreamMode<string> {
    return { kind: "edit", intervalMs: 10 };
  }
}
