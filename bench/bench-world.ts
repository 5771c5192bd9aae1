import { performance } from "node:perf_hooks";
import type { FakeStep, RecordedRequest } from "../tests/fakes/model-fake-server.js";
import { type FakeModelServer, startOpenAIFake } from "../tests/fakes/openai-server.js";
import { FakeTelegramApi, type FakeUser, type RecordedCall } from "../tests/fakes/telegram-api.js";
import { benchReply, type ModelLatency, OpenStreams } from "./model-latency.js";
import { type ProbeServer, startProbeServer } from "./probe-mcp-server.js";

/** One message of the bench and the moments it went through (milliseconds, `performance.now()`). */
export interface Exchange {
  token: string;
  chatId: number;
  sentAt: number;
  modelRequestAt?: number;
  lastChunkAt?: number;
  /** The answer's first words showed in the chat (a draft, a post or an edit). */
  firstWordsAt?: number;
  cardAt?: number;
  clickAt?: number;
  toolStartAt?: number;
  replyAt?: number;
  promptBytes: number[];
}

const botToken = "7000:bench";
const defaultReplyTimeoutMs = 30_000;
const tokenPattern = /\b(m\d+x\d+)\b/;

interface ChatMessage {
  role: string;
  content?: unknown;
}

/**
 * The world around the service under test, all on 127.0.0.1: a Telegram Bot API fake that the
 * service long-polls, an OpenAI fake that answers at once, and an MCP server whose one tool
 * reports when it starts. Each message carries a token (`m<chat>x<n>`) that the fake model
 * echoes, so every moment is attributed to its message.
 */
/**
 * The config lines both bench worlds share: the model, one agent that may call the probe tool
 * (approval required), its world, and the probe MCP server. Each world adds its channel.
 */
export function benchConfigHead(modelUrl: string, probeUrl: string): string[] {
  return [
    "providers:",
    `  openai: { apiKey: sk-bench, baseUrl: "${modelUrl}" }`,
    "agents:",
    "  - name: alice",
    "    provider: openai",
    "    model: gpt-4.1",
    "    systemPrompt: You are alice, a helpful assistant in a benchmark.",
    '    tools: ["probe__ping"]',
    "worlds:",
    "  - name: main",
    "    agents: [alice]",
    "    defaultAgent: alice",
    // One person per chat sends far more than 20 a minute here. `--budgets`: three caps that never bite.
    process.env.ROUNDTABLE_BENCH_BUDGETS === "1"
      ? "    limits: { messagesPerMinute: 1000000, costPerDay: 1000000, perPerson: { costPerDay: 1000000 }, perChat: { tokensPerMonth: 2000000000 } }"
      : "    limits: { messagesPerMinute: 1000000 }",
    "tools:",
    "  mcpServers:",
    `    probe: { url: "${probeUrl}" }`,
  ];
}

export class BenchWorld {
  private readonly exchanges = new Map<string, Exchange>();
  private readonly settle = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  private readonly users = new Map<number, FakeUser>();
  private firstPoll: { at?: number; waiters: (() => void)[] } = { waiters: [] };
  private sequence = 0;
  /** How many times the probe tool started, by message token (a tool run twice shows here). */
  readonly toolRuns = new Map<string, number>();
  /** How long `send` waits for an answer before it rejects. */
  replyTimeoutMs = defaultReplyTimeoutMs;
  /** The model streams open now (`--model-latency real`: answers in flight). */
  readonly streams = new OpenStreams();
  private latency: ModelLatency = "instant";
  /** Connections the service opened to the Telegram fake (a keep-alive pool reuses them). */
  platformConnections = 0;

  private constructor(
    readonly telegram: FakeTelegramApi,
    readonly model: FakeModelServer,
    readonly probe: ProbeServer,
  ) {}

  static async start(latency: ModelLatency = "instant"): Promise<BenchWorld> {
    const telegram = await FakeTelegramApi.start([{ token: botToken, username: "roundtable_bot" }]);
    telegram.recordCalls = false;
    let world: BenchWorld | undefined;
    const model = await startOpenAIFake({
      record: false,
      respond: (request) => world?.answer(request) ?? { type: "reply", text: ["?"] },
      onRequest: (request, bytes) => world?.onModelRequest(request, bytes),
      onReplyWritten: (request) => world?.onModelReplied(request),
    });
    const probe = await startProbeServer((token) => world?.onToolStart(token));
    world = new BenchWorld(telegram, model, probe);
    world.latency = latency;
    telegram.onArrival = (method) => world?.onArrival(method);
    telegram.onCall = (call) => world?.onTelegramCall(call);
    telegram.onConnection = () => {
      if (world) world.platformConnections++;
    };
    return world;
  }

  /** The service's config: one agent that may call the probe tool (approval required). */
  configYaml(): string {
    return [
      ...benchConfigHead(this.model.baseUrl, this.probe.url),
      "channels:",
      "  telegram:",
      `    token: "${botToken}"`,
      `    apiRoot: "${this.telegram.apiRoot}"`,
      '    chats: { "*": main }',
      "",
    ].join("\n");
  }

  /** Resolves with the moment the first `getUpdates` arrived (the service is listening). */
  firstPollAt(): Promise<number> {
    const { at } = this.firstPoll;
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => this.firstPoll.waiters.push(() => resolve(this.firstPoll.at ?? 0)));
  }

  /** Forgets when the first poll came (before a restart). */
  resetFirstPoll(): void {
    this.firstPoll = { waiters: [] };
  }

  /** The private chat with `chatId` and its one person. */
  chat(chatId: number): FakeUser {
    let user = this.users.get(chatId);
    if (!user) {
      user = { id: 100_000 + chatId, is_bot: false, first_name: `person${chatId}` };
      this.users.set(chatId, user);
      this.telegram.addChat({ id: chatId, type: "private", first_name: user.first_name });
    }
    return user;
  }

  /**
   * A person writes in chat `chatId`; resolves when the answer is in the chat. With `tool`, the
   * model asks for the probe tool and the person approves the card (`once`) as soon as it shows.
   */
  send(chatId: number, tool = false): Promise<Exchange> {
    const from = this.chat(chatId);
    const token = `m${chatId}x${++this.sequence}`;
    const exchange: Exchange = { token, chatId, sentAt: performance.now(), promptBytes: [] };
    this.exchanges.set(token, exchange);
    const done = new Promise<Exchange>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to ${token} within ${this.replyTimeoutMs} ms`)),
        this.replyTimeoutMs,
      );
      this.settle.set(token, {
        resolve: () => {
          clearTimeout(timer);
          this.settle.delete(token);
          this.exchanges.delete(token);
          resolve(exchange);
        },
        reject,
      });
    });
    this.telegram.userMessage(botToken, { chatId, from, text: `${token} ${tool ? "please ping" : "hello there"}` });
    return done;
  }

  async close(): Promise<void> {
    await Promise.all([this.telegram.close(), this.model.close(), this.probe.close()]);
  }

  private answer(request: RecordedRequest): FakeStep {
    const messages = ((request.body as { messages?: ChatMessage[] }).messages ?? []) as ChatMessage[];
    const last = messages.at(-1);
    const lastUser = messages.findLast((message) => message.role === "user");
    const token = tokenPattern.exec(textOf(lastUser?.content))?.[1] ?? "m0x0";
    if (last?.role === "tool") return { type: "reply", text: [`re ${token} done`] };
    if (textOf(lastUser?.content).includes("please ping"))
      return {
        type: "reply",
        toolCalls: [{ id: `call_${token}`, name: "probe__ping", argumentChunks: [JSON.stringify({ token })] }],
      };
    return benchReply(token, this.latency);
  }

  private tokenOf(request: RecordedRequest): Exchange | undefined {
    const messages = ((request.body as { messages?: ChatMessage[] }).messages ?? []) as ChatMessage[];
    const lastUser = messages.findLast((message) => message.role === "user");
    const token = tokenPattern.exec(textOf(lastUser?.content))?.[1];
    return token === undefined ? undefined : this.exchanges.get(token);
  }

  private onModelRequest(request: RecordedRequest, bytes: number): void {
    const exchange = this.tokenOf(request);
    this.streams.started();
    if (!exchange) return;
    exchange.modelRequestAt ??= performance.now();
    exchange.promptBytes.push(bytes);
  }

  private onModelReplied(request: RecordedRequest): void {
    this.streams.ended();
    const exchange = this.tokenOf(request);
    if (exchange) exchange.lastChunkAt = performance.now();
  }

  private onToolStart(token: string): void {
    this.toolRuns.set(token, (this.toolRuns.get(token) ?? 0) + 1);
    const exchange = this.exchanges.get(token);
    if (exchange) exchange.toolStartAt ??= performance.now();
  }

  private onArrival(method: string): void {
    if (method !== "getUpdates" || this.firstPoll.at !== undefined) return;
    this.firstPoll.at = performance.now();
    for (const wake of this.firstPoll.waiters.splice(0)) wake();
  }

  private onTelegramCall(call: RecordedCall): void {
    if (!call.ok) return;
    const text = String(call.params.text ?? "");
    const token = tokenPattern.exec(text)?.[1];
    const exchange = token === undefined ? undefined : this.exchanges.get(token);
    if (!exchange) return;
    if (text.includes(`re ${exchange.token}`)) exchange.firstWordsAt ??= performance.now();
    if (call.method !== "sendMessage" && call.method !== "editMessageText") return;
    const data = callbackOnce(call.params.reply_markup);
    if (data !== undefined && call.method === "sendMessage") {
      exchange.cardAt = performance.now();
      const messageId = (call.result as { message_id?: number } | undefined)?.message_id ?? 0;
      exchange.clickAt = performance.now();
      this.telegram.pressButton(botToken, {
        chatId: exchange.chatId,
        messageId,
        from: this.chat(exchange.chatId),
        data,
      });
      return;
    }
    if (text.includes(`re ${exchange.token}`) && (text.includes("ok") || text.includes("done"))) {
      exchange.replyAt ??= performance.now();
      this.settle.get(exchange.token)?.resolve();
    }
  }
}

/** The text of an OpenAI message content: a string, or its text parts joined. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part?.text === "string" ? (part.text as string) : "")).join("");
  return "";
}

/** The callback data of a card's `once` button, if the markup is an approval card. */
export function callbackOnce(markup: unknown): string | undefined {
  const rows = (markup as { inline_keyboard?: { callback_data?: string }[][] } | undefined)?.inline_keyboard;
  for (const row of rows ?? [])
    for (const button of row) if (button.callback_data?.endsWith(":o")) return button.callback_data;
  return undefined;
}
