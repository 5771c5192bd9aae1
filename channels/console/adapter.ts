import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import type {
  ApprovalCard,
  ApprovalOutcome,
  Author,
  ChannelAdapter,
  ChannelCapabilities,
  ChannelPrimitives,
  ChatRef,
  InboundSink,
  NativeStream,
  OutboundText,
  PrivateReplyChannel,
  StreamMode,
} from "../../src/world/channel-adapter.js";
import { approveUsage, parseConsoleLine } from "./parse.js";
import { renderApprovalLine, renderMessageLine, renderOutcomeLine, terminalSafe } from "./render.js";

export interface ConsoleAdapterOptions {
  /** The world this console talks to. */
  world: string;
  /** The local user's name; with the world it identifies the chat. */
  user: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Stream answers as they are written (a terminal); otherwise print whole lines. */
  interactive: boolean;
  /**
   * Awaited before each line when not interactive, so a piped script acts on what the lines
   * before it caused (an `/approve` after the message that asks for it).
   */
  settle?: () => Promise<void>;
  /** Printed first when interactive (who you are, which world, how to address agents). */
  banner?: string;
}

/** Shown where the next line is typed (interactive only). */
const prompt = "> ";
/** Back to the start of the line and clear it: a printed message replaces the prompt. */
const clearLine = "\r\u001b[2K";
/** An address run at the start of a text (`@alice `, `@bob, @carol: `). */
const leadingAddresses = /^(?:@[\p{L}\p{N}_-]+[,:]?\s*)+/u;

/**
 * The terminal channel: stdin lines are messages from the local user (an approver), every
 * message of the chat is printed as `<sender>: <text>`. `finished` resolves when stdin has
 * ended and every line was handed to the world. A part is one printed line (its id the number
 * of the line it starts on); a printed line is never changed, so an answer streams natively
 * (written as it comes) and an outcome is printed below its card.
 */
export class ConsoleAdapter implements ChannelAdapter, ChannelPrimitives<string>, PrivateReplyChannel {
  readonly id = "console";
  readonly platform = "console" as const;
  readonly capabilities: ChannelCapabilities = {
    // A printed line stays as printed; a stream is written once, as it comes.
    canEdit: false,
    identifiesClickers: false,
    // `roundtable chat --world NAME`: the world is part of the chat.
    chatsNameTheirWorld: true,
  };
  readonly chat: ChatRef;
  private connected = false;
  private counter = 0;
  /** Lines written so far: a posted message's id is the number of the line it starts on. */
  private linesWritten = 0;
  private readonly session = randomBytes(4).toString("hex");
  /** The prompt is on screen (nothing typed after it yet). */
  private prompting = false;
  /** Streams being printed: no prompt in the middle of an answer. */
  private streaming = 0;
  private resolveFinished: () => void = () => {};
  /** Resolves once the input has ended and all its lines were handled. */
  readonly finished = new Promise<void>((resolve) => {
    this.resolveFinished = resolve;
  });

  constructor(private readonly options: ConsoleAdapterOptions) {
    this.chat = { platform: "console", workspace: options.world, channel: options.user };
  }

  async start(sink: InboundSink): Promise<void> {
    this.connected = true;
    if (this.options.interactive && this.options.banner !== undefined) this.print(this.options.banner);
    this.showPrompt();
    const lines = createInterface({ input: this.options.input, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
    void (async () => {
      try {
        for await (const line of lines) {
          // The terminal echoed the line and its newline: the prompt is used up.
          this.prompting = false;
          if (!this.options.interactive) await this.options.settle?.();
          await this.handleLine(sink, line);
          this.showPrompt();
        }
      } finally {
        this.connected = false;
        if (this.prompting) this.options.output.write("\n");
        this.prompting = false;
        this.resolveFinished();
      }
    })();
  }

  async stop(): Promise<void> {
    this.connected = false;
  }

  isConnected(): boolean {
    return this.connected;
  }

  async renderParts(_chat: ChatRef, message: OutboundText): Promise<string[]> {
    return [renderMessageLine(message)];
  }

  samePart(left: string, right: string): boolean {
    return left === right;
  }

  async sendPart(_chat: ChatRef, _author: Author, part: string): Promise<string> {
    return this.print(part);
  }

  /** A printed line cannot change: the new text is printed below it. */
  async editPart(_chat: ChatRef, _author: Author, _id: string, part: string): Promise<"edited" | "gone"> {
    this.print(part);
    return "edited";
  }

  /** A printed line stays printed. */
  async deletePart(): Promise<void> {}

  async replyPrivately(_chat: ChatRef, _userId: string, text: string): Promise<void> {
    this.print(`roundtable: ${text}`);
  }

  async sendCard(_chat: ChatRef, card: ApprovalCard): Promise<{ id: string }> {
    return { id: this.print(renderApprovalLine(card)) };
  }

  /** The outcome is printed as a line of its own (the card's line stays as printed). */
  async editCard(_chat: ChatRef, _id: string, outcome: ApprovalOutcome): Promise<"edited"> {
    this.print(renderOutcomeLine(outcome));
    return "edited";
  }

  async renderOutcome(_chat: ChatRef, outcome: ApprovalOutcome): Promise<string> {
    return renderOutcomeLine(outcome);
  }

  /** Answers are written as they come (in a terminal), else printed whole at the end. */
  streamMode(_chat: ChatRef, author: Author): StreamMode<string> {
    return { kind: "native", open: () => this.nativeStream(author) };
  }

  private nativeStream(author: Author): NativeStream {
    const interactive = this.options.interactive;
    let printed = "";
    let started = false;
    let held = false;
    let firstLine = "";
    const end = (): void => {
      if (!started) return;
      started = false;
      this.streaming -= 1;
      this.showPrompt();
    };
    return {
      update: (textSoFar: string) => {
        if (held || !interactive || !textSoFar.startsWith(printed)) return;
        if (!started) {
          this.streaming += 1;
          firstLine = String(this.linesWritten + 1);
          this.write(`${author.displayName ?? author.name}: `);
          started = true;
        }
        this.write(textSoFar.slice(printed.length));
        printed = textSoFar;
      },
      // Nothing is in flight: what is written is written at once.
      hold: async () => {
        held = true;
      },
      finish: async (finalText: string) => {
        if (!started) return { ids: [this.print(renderMessageLine({ author, text: finalText }))] };
        // The final text may differ from the streamed one only in its address (the auto-mention
        // put in front of an answer to another agent, a self-mention taken out): the terminal
        // already shows the words, so only what is new is written, never the answer twice.
        const rest = remainderAfter(printed, finalText);
        if (rest !== undefined) {
          this.write(`${rest}\n`);
          end();
          return { ids: [firstLine] };
        }
        this.write("\n");
        end();
        return { ids: [this.print(renderMessageLine({ author, text: finalText }))] };
      },
      abort: async () => {
        if (started) this.write(" [cut]\n");
        end();
      },
    };
  }

  private async handleLine(sink: InboundSink, line: string): Promise<void> {
    const input = parseConsoleLine(line);
    const sender = { id: this.options.user, displayName: this.options.user, isBot: false };
    switch (input.kind) {
      case "empty":
        return;
      case "help":
        // The console's own command first; the world's /help follows with the chat commands.
        this.print(`type a message (address agents with @name); ${approveUsage}`);
        await this.sendMessage(sink, input.text, line);
        return;
      case "invalid":
        this.print(input.problem);
        return;
      case "approve": {
        const result = await sink.click({
          chat: this.chat,
          approvalId: input.approvalId,
          choice: input.choice,
          user: sender,
          ...(input.reason === undefined
            ? {}
            : input.choice === "edit"
              ? { editedArgumentsJson: input.reason }
              : { reason: input.reason }),
          raw: line,
        });
        this.print(result.text);
        return;
      }
      case "message":
        if (!this.options.interactive) this.print(`${this.options.user}: ${input.text}`);
        await this.sendMessage(sink, input.text, line);
        return;
    }
  }

  private async sendMessage(sink: InboundSink, text: string, line: string): Promise<void> {
    const result = await sink.message({
      chat: this.chat,
      platformMessageId: `${Date.now().toString(36)}-${this.session}-${this.nextId()}`,
      sender: { id: this.options.user, displayName: this.options.user, isBot: false },
      text,
      mentions: [],
      receivedAt: new Date(),
      raw: line,
    });
    // Other refusals are answered by the world in the chat itself.
    if (result.status === "unbound") this.print(`roundtable: ${result.reason}`);
  }

  /** Print one line (or a multi-line message); returns the number of the line it starts on. */
  private print(line: string): string {
    const start = String(this.linesWritten + 1);
    this.write(`${line}\n`);
    this.showPrompt();
    return start;
  }

  private write(text: string): void {
    if (this.prompting) {
      this.options.output.write(clearLine);
      this.prompting = false;
    }
    for (const character of text) if (character === "\n") this.linesWritten += 1;
    this.options.output.write(terminalSafe(text));
  }

  /** In a terminal, show the prompt again when nothing is being printed and input goes on. */
  private showPrompt(): void {
    if (!this.options.interactive || this.prompting || this.streaming > 0 || !this.connected) return;
    this.options.output.write(prompt);
    this.prompting = true;
  }

  private nextId(): string {
    this.counter += 1;
    return String(this.counter);
  }
}

/**
 * What to write after the streamed `printed` to show `final`: the rest when `final` goes on
 * from it, also when the two differ only in the address run in front; undefined when the
 * words differ (the final text is then printed whole).
 */
function remainderAfter(printed: string, final: string): string | undefined {
  if (final.startsWith(printed)) return final.slice(printed.length);
  const printedWords = printed.replace(leadingAddresses, "");
  const finalWords = final.replace(leadingAddresses, "");
  if (printedWords.trim() === "" || !finalWords.startsWith(printedWords)) return undefined;
  return finalWords.slice(printedWords.length);
}
