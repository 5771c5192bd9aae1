/**
 * One chat platform seen by several service processes at once (each with its own adapter), as
 * a list of messages. The adapter is built only from the delivery primitives; a test can hold
 * the next post on its way (the platform has it, the answer is not back yet).
 */
import type { ApprovalCard, ApprovalOutcome } from "../../src/world/approval-types.js";
import type { AgentIdentityChannel, ChannelAdapter, ChannelCapabilities } from "../../src/world/channel-adapter.js";
import type { ChatRef, Platform } from "../../src/world/chat-ref.js";
import type { ChannelPrimitives, SendPartOptions, StreamMode } from "../../src/world/delivery/primitives.js";
import type { Author } from "../../src/world/message.js";
import type { OutboundText } from "../../src/world/outbound-text.js";

export interface PlatformMessage {
  id: string;
  author: string;
  text: string;
}

export interface HeldPost {
  /** Resolves once a post reached the platform and waits for its answer. */
  reached: Promise<void>;
  release(): void;
}

export class SharedPlatform {
  readonly messages: PlatformMessage[] = [];
  private next = 0;
  private held: { reached: () => void; released: Promise<void> } | undefined;

  /** The next post is taken by the platform, but its answer waits for `release()`. */
  holdNextPost(): HeldPost {
    let reached: () => void = () => {};
    let release: () => void = () => {};
    const reachedPromise = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.held = { reached, released };
    return { reached: reachedPromise, release };
  }

  async post(author: string, text: string): Promise<string> {
    this.next += 1;
    const id = `msg-${this.next}`;
    this.messages.push({ id, author, text });
    const held = this.held;
    this.held = undefined;
    if (held) {
      held.reached();
      await held.released;
    }
    return id;
  }

  edit(id: string, text: string): void {
    const message = this.messages.find((each) => each.id === id);
    if (message) message.text = text;
  }

  delete(id: string): void {
    const index = this.messages.findIndex((each) => each.id === id);
    if (index >= 0) this.messages.splice(index, 1);
  }
}

/** One process's connection of an agent to the shared platform, streaming by edits. */
export class SharedPlatformChannel implements ChannelAdapter, AgentIdentityChannel, ChannelPrimitives<string> {
  readonly id: string;
  readonly capabilities: ChannelCapabilities = {
    canEdit: true,
    identifiesClickers: true,
    chatsNameTheirWorld: false,
  };

  constructor(
    private readonly shared: SharedPlatform,
    readonly platform: Platform,
    readonly agent: string,
  ) {
    this.id = `${platform}:${agent}`;
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  isConnected(): boolean {
    return true;
  }

  async renderParts(_chat: ChatRef, message: OutboundText): Promise<string[]> {
    return [message.text];
  }

  samePart(left: string, right: string): boolean {
    return left === right;
  }

  sendPart(_chat: ChatRef, author: Author, part: string, _options?: SendPartOptions): Promise<string> {
    return this.shared.post(author.name, part);
  }

  async editPart(_chat: ChatRef, _author: Author, id: string, part: string): Promise<"edited" | "gone"> {
    this.shared.edit(id, part);
    return "edited";
  }

  async deletePart(_chat: ChatRef, _author: Author, id: string): Promise<void> {
    this.shared.delete(id);
  }

  async sendCard(_chat: ChatRef, card: ApprovalCard): Promise<{ id: string }> {
    return { id: await this.shared.post("roundtable", `card ${card.tool}`) };
  }

  async editCard(_chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited"> {
    this.shared.edit(id, `card ${outcome.state}`);
    return "edited";
  }

  async renderOutcome(_chat: ChatRef, outcome: ApprovalOutcome): Promise<string> {
    return `outcome ${outcome.state}`;
  }

  streamMode(): StreamMode<string> {
    return { kind: "edit", intervalMs: 20 };
  }
}
