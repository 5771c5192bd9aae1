/**
 * A small in-memory channel built on the primitives: a chat is a list of messages, a part is
 * a string of at most `maxPartLength` characters (cut at spaces). Every primitive call is
 * logged, so tests see what reached the "platform" and in what order.
 */
import type { ApprovalCard, ApprovalOutcome } from "../../../src/world/approval-types.js";
import type { ChannelAdapter } from "../../../src/world/channel-adapter.js";
import type { ChannelCapabilities } from "../../../src/world/channel/channel-capabilities.js";
import type { ChatRef } from "../../../src/world/chat-ref.js";
import type { PartKey } from "../../../src/world/delivery/post-key.js";
import type {
  ChannelPrimitives,
  DraftSurface,
  SendPartOptions,
  StreamMode,
} from "../../../src/world/delivery/primitives.js";
import type { Author } from "../../../src/world/message.js";
import type { OutboundText } from "../../../src/world/outbound-text.js";

export interface MemoryMessage {
  id: string;
  text: string;
  live: boolean;
  key?: string;
}

export type MemoryCall =
  | { kind: "send"; id: string; text: string; live: boolean; key?: string; mayExist?: boolean }
  | { kind: "edit"; id: string; text: string; live: boolean }
  | { kind: "delete"; id: string }
  | { kind: "find"; key: string }
  | { kind: "draft"; text: string }
  | { kind: "card"; id: string }
  | { kind: "attach"; id: string }
  | { kind: "edit-card"; id: string }
  | { kind: "record"; ids: string[] };

export class MemoryChannel implements ChannelPrimitives<string> {
  readonly messages: MemoryMessage[] = [];
  readonly calls: MemoryCall[] = [];
  readonly drafts: string[] = [];
  private next = 0;
  /** Looks posts up by key; present only once `findable` is set. */
  findPosted?: NonNullable<ChannelPrimitives<string>["findPosted"]>;
  /** Set: a card carries an attachment. */
  attachments = false;
  /** Ids whose card cannot be edited any more. */
  readonly goneCards = new Set<string>();
  /** Set: the draft surface refuses. */
  refuseDrafts = false;
  mode: StreamMode<string> = { kind: "none" };

  constructor(readonly maxPartLength = 20) {}

  async renderParts(_chat: ChatRef, message: OutboundText): Promise<string[]> {
    const parts: string[] = [];
    let rest = message.text.trim();
    while (rest.length > this.maxPartLength) {
      const cut = rest.lastIndexOf(" ", this.maxPartLength);
      const at = cut > 0 ? cut : this.maxPartLength;
      parts.push(rest.slice(0, at));
      rest = rest.slice(at).trimStart();
    }
    parts.push(rest);
    return parts;
  }

  samePart(left: string, right: string): boolean {
    return left === right;
  }

  async sendPart(_chat: ChatRef, _author: Author, part: string, options: SendPartOptions = {}): Promise<string> {
    this.next += 1;
    const id = `m${this.next}`;
    const live = options.live ?? false;
    const key = options.key?.key;
    this.messages.push({ id, text: part, live, ...(key === undefined ? {} : { key }) });
    this.calls.push({
      kind: "send",
      id,
      text: part,
      live,
      ...(key === undefined ? {} : { key, mayExist: options.key?.mayExist ?? false }),
    });
    return id;
  }

  async editPart(
    _chat: ChatRef,
    _author: Author,
    id: string,
    part: string,
    options: { live?: boolean } = {},
  ): Promise<"edited" | "gone"> {
    const message = this.messages.find((each) => each.id === id);
    if (!message) return "gone";
    message.text = part;
    message.live = options.live ?? false;
    this.calls.push({ kind: "edit", id, text: part, live: message.live });
    return "edited";
  }

  async deletePart(_chat: ChatRef, _author: Author, id: string): Promise<void> {
    const index = this.messages.findIndex((each) => each.id === id);
    if (index >= 0) this.messages.splice(index, 1);
    this.calls.push({ kind: "delete", id });
  }

  async findPostedImpl(key: PartKey): Promise<{ id: string; shows?: string } | undefined> {
    this.calls.push({ kind: "find", key: key.key });
    const found = this.messages.find((message) => message.key === key.key);
    return found ? { id: found.id, shows: found.text } : undefined;
  }

  /** Give the channel `findPosted` (a platform that can look its posts up by key). */
  set findable(on: boolean) {
    if (on) this.findPosted = (_chat, _author, key) => this.findPostedImpl(key);
    else delete this.findPosted;
  }

  async sendCard(_chat: ChatRef, card: ApprovalCard, key?: PartKey) {
    this.next += 1;
    const id = `m${this.next}`;
    this.messages.push({ id, text: `card ${card.tool}`, live: false, ...(key ? { key: key.key } : {}) });
    this.calls.push({ kind: "card", id });
    if (!this.attachments) return { id };
    return {
      id,
      attach: async () => {
        this.calls.push({ kind: "attach", id });
      },
    };
  }

  async editCard(_chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone"> {
    this.calls.push({ kind: "edit-card", id });
    const message = this.messages.find((each) => each.id === id);
    if (!message || this.goneCards.has(id)) return "gone";
    message.text = `card ${outcome.state}`;
    return "edited";
  }

  async renderOutcome(_chat: ChatRef, outcome: ApprovalOutcome): Promise<string> {
    return `outcome ${outcome.state}`;
  }

  streamMode(): StreamMode<string> {
    return this.mode;
  }

  /** A draft surface that logs what it shows (or refuses, when `refuseDrafts`). */
  draftSurface(): DraftSurface<string> {
    return {
      show: async (part) => {
        if (this.refuseDrafts) throw new Error("drafts refused here");
        this.drafts.push(part);
        this.calls.push({ kind: "draft", text: part });
      },
    };
  }

  /** What the chat shows, in order. */
  texts(): string[] {
    return this.messages.map((message) => message.text);
  }
}

/** The delivery tests step time by hand, as the platforms' tests do. */
export { ManualClock as StepClock } from "../../fakes/manual-clock.js";

export const chat: ChatRef = { platform: "console", workspace: "w", channel: "c" };
export const alice: Author = { kind: "agent", id: "alice", name: "alice" };

/** The memory channel as an adapter (what `writerFor` takes). */
export class MemoryAdapter extends MemoryChannel implements ChannelAdapter {
  readonly id = "memory";
  readonly platform = "console" as const;
  readonly capabilities: ChannelCapabilities;

  constructor(maxPartLength = 20, canEdit = true) {
    super(maxPartLength);
    this.capabilities = {
      canEdit,
      identifiesClickers: true,
      chatsNameTheirWorld: true,
    };
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  isConnected(): boolean {
    return true;
  }
}
