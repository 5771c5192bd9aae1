import { PlatformApiError } from "../../src/errors/roundtable-error.js";
import type { ApprovalCard, ApprovalOutcome } from "../../src/world/approval-types.js";
import type { ChannelAdapter, ChannelCapabilities, OutboundText } from "../../src/world/channel-adapter.js";
import type { PartKey } from "../../src/world/delivery/post-key.js";
import type { ChannelPrimitives, SendPartOptions, StreamMode } from "../../src/world/delivery/primitives.js";
import { type Author, worldAuthor } from "../../src/world/message.js";
import type { ChatRef, Platform } from "../../src/world/chat-ref.js";
import type {
  ApprovalClick,
  ClickResult,
  CommandResult,
  InboundCommand,
  InboundMessage,
  InboundSink,
  IngressResult,
} from "../../src/world/inbound.js";

export type Posted =
  | {
      kind: "message";
      chat: ChatRef;
      id: string;
      author: string;
      text: string;
      outbound: OutboundText;
      /** The key the world named the post's part by (`SendPartOptions.key`). */
      postKey?: PartKey;
    }
  | { kind: "card"; chat: ChatRef; id: string; card: ApprovalCard }
  | { kind: "card-update"; chat: ChatRef; ids: string[]; outcome: ApprovalOutcome };

/**
 * A channel for world tests: records everything the world posts and lets the test send
 * messages and clicks through the same `InboundSink` a platform adapter uses.
 */
export class RecordingChannel implements ChannelAdapter, ChannelPrimitives<OutboundText> {
  readonly posted: Posted[] = [];
  private sink: InboundSink | undefined;
  private counter = 0;

  readonly capabilities: ChannelCapabilities;

  constructor(
    readonly platform: Platform = "console",
    readonly id: string = `recording-${platform}`,
  ) {
    this.capabilities = {
      canEdit: false,
      // Like the console adapter: its clicks come from the one local user.
      identifiesClickers: platform !== "console",
      // Like the console and web adapters: their chats name their world.
      chatsNameTheirWorld: platform === "console" || platform === "web",
    };
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
  }

  async stop(): Promise<void> {
    this.sink = undefined;
  }

  isConnected(): boolean {
    return this.sink !== undefined;
  }

  /** Refuse posting while this says so (a platform refusing: 5xx, rate limits, outages). */
  refusePost: ((message: OutboundText) => boolean) | undefined;

  async renderParts(_chat: ChatRef, message: OutboundText): Promise<OutboundText[]> {
    return [message];
  }

  samePart(left: OutboundText, right: OutboundText): boolean {
    return left.text === right.text;
  }

  async sendPart(chat: ChatRef, _author: Author, part: OutboundText, options: SendPartOptions = {}): Promise<string> {
    if (this.refusePost?.(part))
      throw new PlatformApiError("the platform refused the message (test)", { method: "sendPart" });
    const id = this.nextId();
    const postKey = options.key;
    this.posted.push({
      kind: "message",
      chat,
      id,
      author: part.author.name,
      text: part.text,
      outbound: part,
      ...(postKey ? { postKey } : {}),
    });
    return id;
  }

  /** Never called: the channel says it cannot edit (`canEdit: false`). */
  async editPart(): Promise<"edited" | "gone"> {
    throw new PlatformApiError("the recording channel cannot edit", { method: "editPart" });
  }

  async deletePart(): Promise<void> {}

  async sendCard(chat: ChatRef, card: ApprovalCard): Promise<{ id: string }> {
    const id = this.nextId();
    this.posted.push({ kind: "card", chat, id, card });
    return { id };
  }

  async editCard(chat: ChatRef, id: string, outcome: ApprovalOutcome): Promise<"edited" | "gone"> {
    this.posted.push({ kind: "card-update", chat, ids: [id], outcome });
    return "edited";
  }

  async renderOutcome(_chat: ChatRef, outcome: ApprovalOutcome): Promise<OutboundText> {
    return { author: worldAuthor, text: `${outcome.tool}: ${outcome.state}` };
  }

  streamMode(): StreamMode<OutboundText> {
    return { kind: "none" };
  }

  send(message: InboundMessage): Promise<IngressResult> {
    if (!this.sink) throw new Error("channel not started");
    return this.sink.message(message);
  }

  click(click: ApprovalClick): Promise<ClickResult> {
    if (!this.sink) throw new Error("channel not started");
    return this.sink.click(click);
  }

  command(command: InboundCommand): Promise<CommandResult> {
    if (!this.sink) throw new Error("channel not started");
    return this.sink.command(command);
  }

  messages(chat?: ChatRef): Extract<Posted, { kind: "message" }>[] {
    return this.posted.filter(
      (item): item is Extract<Posted, { kind: "message" }> =>
        item.kind === "message" && (chat === undefined || sameChat(item.chat, chat)),
    );
  }

  cards(): Extract<Posted, { kind: "card" }>[] {
    return this.posted.filter((item): item is Extract<Posted, { kind: "card" }> => item.kind === "card");
  }

  updates(): Extract<Posted, { kind: "card-update" }>[] {
    return this.posted.filter((item): item is Extract<Posted, { kind: "card-update" }> => item.kind === "card-update");
  }

  private nextId(): string {
    this.counter += 1;
    return `p${this.counter}`;
  }
}

function sameChat(a: ChatRef, b: ChatRef): boolean {
  return a.platform === b.platform && a.channel === b.channel && a.workspace === b.workspace && a.thread === b.thread;
}
