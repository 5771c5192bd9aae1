import { performance } from "node:perf_hooks";
import { type ProbeServer, startProbeServer } from "../../bench/probe-mcp-server.js";
import type { FakeStep, RecordedRequest } from "../fakes/model-fake-server.js";
import { type FakeModelServer, startOpenAIFake } from "../fakes/openai-server.js";
import { FakeTelegramApi, type FakeUser, type RecordedCall } from "../fakes/telegram-api.js";
import type { Life, Post } from "./judge-doubles.js";
import { processOfPort } from "./process-of-port.js";
import { callbackOnce, textOf } from "../../bench/bench-world.js";
import { autonomousConfigLines } from "./autonomous-chaos.js";

const botToken = "7000:chaos";
export const chaosAgents = ["alice", "bob"] as const;
const tokenPattern = /\b(m\d+x\d+)\b/;

/** One message of the run: who it asks, and when it was sent and first answered (`performance.now()`). */
export interface Exchange {
  token: string;
  chatId: number;
  agent: string;
  tool: boolean;
  sentAt: number;
  answeredAt?: number;
}

interface ModelBreak {
  kind: "cut" | "overloaded";
  times: number;
}

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { function?: { arguments?: string } }[];
}

/**
 * The chaos run's world on Telegram, all on 127.0.0.1: group chats on a Telegram fake that the
 * service long-polls, two agents (alice, bob) on an OpenAI fake that takes 20 to 200 ms to
 * answer, and an MCP probe tool that needs approval (the person approves each card as soon as
 * it shows). Each message is `@<agent> say|run <token>`.
 *
 * The model answers the **earliest** question to it that its request shows as still open, not
 * the newest: a request view that shows an answered question as open (a turn run before an
 * earlier one ended) makes it answer that question again and leave its own unanswered, which
 * the run reads back as a double and a loss. A question counts as answered by an assistant
 * message naming its token, and an assistant message naming none (a step still under way, a
 * turn parked on its approval) answers the earliest open one.
 */
export class TelegramChaosWorld {
  /** Every `sendMessage` the fake accepted, with its sender. */
  readonly posts: Post[] = [];
  /** How many times the probe tool started, by message token. */
  readonly toolRuns = new Map<string, number>();
  /** When each process (by pid) first called the Bot API: it is up, whether or not `/readyz` says so yet. */
  readonly firstCallAt = new Map<number, number>();
  /** Which process each connection to the fake comes from (see process-of-port.ts). */
  private readonly ownerOfPort = new Map<number, number>();
  private readonly exchanges = new Map<string, Exchange>();
  private readonly waiting = new Map<string, () => void>();
  private readonly users = new Map<number, FakeUser>();
  private sequence = 0;
  private modelBreaks: ModelBreak[] = [];
  /**
   * `approvals.route: dm`: every card goes to one approver's private chat (who started the bot)
   * and is pressed there; the group gets the "asked privately" line.
   */
  routeCardsToDm = false;
  private readonly approver: FakeUser = { id: 99_999, is_bot: false, first_name: "approver" };
  private firstPoll: Promise<void>;
  private polled: () => void = () => {};

  private constructor(
    readonly telegram: FakeTelegramApi,
    readonly model: FakeModelServer,
    readonly probe: ProbeServer,
    lives: () => readonly Life[],
  ) {
    this.firstPoll = new Promise((resolve) => {
      this.polled = resolve;
    });
    const telegramPort = Number(new URL(telegram.apiRoot).port);
    telegram.onConnection = (remotePort) => {
      const alive = lives()
        .filter((life) => life.killedAt === undefined)
        .map((life) => life.pid);
      const pid = processOfPort(remotePort, telegramPort, alive);
      if (pid === undefined) this.ownerOfPort.delete(remotePort);
      else this.ownerOfPort.set(remotePort, pid);
    };
    telegram.onArrival = (method) => {
      if (method === "getUpdates") this.polled();
    };
    telegram.onCall = (call) => this.onTelegramCall(call);
    telegram.addChat({ id: this.approver.id, type: "private", first_name: this.approver.first_name });
  }

  static async start(lives: () => readonly Life[]): Promise<TelegramChaosWorld> {
    const telegram = await FakeTelegramApi.start([
      { token: botToken, username: "roundtable_bot", canReadAllGroupMessages: true },
    ]);
    telegram.recordCalls = false;
    const breaks: ModelBreak[] = [];
    const model = await startOpenAIFake({
      record: false,
      respond: (request) => {
        const broken = breaks[0];
        if (broken && broken.times > 0) {
          broken.times -= 1;
          if (broken.times === 0) breaks.shift();
          return broken.kind === "cut"
            ? { type: "cut", text: ["re (cut) "] }
            : { type: "error", kind: "overloaded", retryAfter: "1" };
        }
        return autonomousAnswer(request) ?? answerEarliestOpen(request);
      },
    });
    let world: TelegramChaosWorld | undefined;
    const probe = await startProbeServer((token) => world?.onToolStart(token));
    world = new TelegramChaosWorld(telegram, model, probe, lives);
    world.modelBreaks = breaks;
    return world;
  }

  /** The next `times` model calls break off: a stream cut after some text, or 529/503 overloaded with `retry-after: 1`. */
  breakModel(kind: "cut" | "overloaded", times: number): void {
    this.modelBreaks.push({ kind, times });
  }

  /**
   * The service's config: alice and bob, each may call the probe tool (approval required). With
   * `autonomous`, a minute schedule and a trigger in the two chats after the load's `chats`.
   */
  configYaml(autonomous?: { chats: number }): string {
    return [
      "providers:",
      `  openai: { apiKey: sk-chaos, baseUrl: "${this.model.baseUrl}" }`,
      "agents:",
      ...chaosAgents.flatMap((name) => [
        `  - name: ${name}`,
        "    provider: openai",
        "    model: gpt-4.1",
        `    systemPrompt: You are ${name}, one of two assistants in a chaos test.`,
        '    tools: ["probe__ping"]',
      ]),
      "worlds:",
      "  - name: main",
      `    agents: [${chaosAgents.join(", ")}]`,
      "    limits: { messagesPerMinute: 1000000 }  # one person per chat writes far more than 20 a minute here",
      ...(this.routeCardsToDm
        ? [`    approvers: { telegram: ["${this.approver.id}"] }`, "    approvals: { route: dm }"]
        : []),
      "tools:",
      "  mcpServers:",
      `    probe: { url: "${this.probe.url}" }`,
      "channels:",
      "  telegram:",
      `    token: "${botToken}"`,
      `    apiRoot: "${this.telegram.apiRoot}"`,
      '    chats: { "*": main }',
      ...(autonomous === undefined
        ? []
        : autonomousConfigLines(this.openChat(autonomous.chats), this.openChat(autonomous.chats + 1))),
      "",
    ].join("\n");
  }

  /** Chat number `index`, made known to the fake (for the schedule's and trigger's chats); its id. */
  openChat(index: number): number {
    const chatId = this.chatId(index);
    this.person(chatId);
    return chatId;
  }

  /** Every text the bot posted in chat `chatId`, in order. */
  botTextsIn(chatId: number): string[] {
    return this.telegram
      .messagesIn(chatId)
      .filter((message) => message.sentByToken !== undefined)
      .map((message) => message.text);
  }

  /** Resolves when a process polls. */
  ready(): Promise<void> {
    return this.firstPoll;
  }

  /** The group chat of chat number `index`. */
  chatId(index: number): number {
    return -1_007_700_000_000 - index;
  }

  /**
   * A person writes the messages back to back (each `[agent, tool]`); resolves when every one
   * is answered (or after `timeoutMs`, with the unanswered ones left to the read-back).
   */
  async sendBurst(index: number, messages: [string, boolean][], timeoutMs: number): Promise<Exchange[]> {
    const chatId = this.chatId(index);
    const from = this.person(chatId);
    const sent: Exchange[] = [];
    for (const [agent, tool] of messages) {
      const token = `m${index}x${++this.sequence}`;
      const exchange: Exchange = { token, chatId, agent, tool, sentAt: performance.now() };
      this.exchanges.set(token, exchange);
      sent.push(exchange);
      const text = `@${agent} ${tool ? "run" : "say"} ${token}`;
      this.telegram.userMessage(botToken, {
        chatId,
        from,
        text,
        entities: [{ type: "mention", offset: 0, length: agent.length + 1 }],
      });
    }
    await Promise.race([
      Promise.all(sent.map((exchange) => this.answered(exchange))),
      new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
    return sent;
  }

  /** The bot's answers in chat `chatId` (cards and the world's notices left out), in order. */
  answersIn(chatId: number): { token: string; text: string; messageId: string }[] {
    const answers: { token: string; text: string; messageId: string }[] = [];
    for (const message of this.telegram.messagesIn(chatId)) {
      if (message.sentByToken === undefined || callbackOnce(message.reply_markup) !== undefined) continue; // people, cards
      const token = /\bre (m\d+x\d+)\b/.exec(message.text)?.[1];
      if (token !== undefined) answers.push({ token, text: message.text, messageId: String(message.message_id) });
    }
    return answers;
  }

  async close(): Promise<void> {
    await Promise.all([this.telegram.close(), this.model.close(), this.probe.close()]);
  }

  private answered(exchange: Exchange): Promise<void> {
    if (exchange.answeredAt !== undefined) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(exchange.token, resolve));
  }

  private person(chatId: number): FakeUser {
    let user = this.users.get(chatId);
    if (!user) {
      user = { id: 100_000 + (this.users.size + 1), is_bot: false, first_name: `person${this.users.size + 1}` };
      this.users.set(chatId, user);
      this.telegram.addChat({ id: chatId, type: "supergroup", title: `chaos ${chatId}` });
    }
    return user;
  }

  private onToolStart(token: string): void {
    this.toolRuns.set(token, (this.toolRuns.get(token) ?? 0) + 1);
  }

  private onTelegramCall(call: RecordedCall): void {
    const caller = call.remotePort === undefined ? undefined : this.ownerOfPort.get(call.remotePort);
    if (caller !== undefined && !this.firstCallAt.has(caller)) this.firstCallAt.set(caller, performance.now());
    if (!call.ok || (call.method !== "sendMessage" && call.method !== "editMessageText")) return;
    const text = String(call.params.text ?? "");
    const chatId = Number(call.params.chat_id);
    const messageId = (call.result as { message_id?: number } | undefined)?.message_id ?? 0;
    if (call.method === "sendMessage") {
      this.posts.push({
        at: performance.now(),
        chatId,
        messageId,
        text,
        pid: caller,
      });
    }
    const once = callbackOnce(call.params.reply_markup);
    if (once !== undefined && call.method === "sendMessage") {
      // The person (or, with cards in DMs, the approver) approves the card as soon as it shows.
      const from = chatId === this.approver.id ? this.approver : this.person(chatId);
      this.telegram.pressButton(botToken, { chatId, messageId, from, data: once });
      return;
    }
    const final = /\bre (m\d+x\d+) (ok|done)\b/.exec(text);
    const exchange = final?.[1] === undefined ? undefined : this.exchanges.get(final[1]);
    if (!exchange || exchange.answeredAt !== undefined) return;
    exchange.answeredAt = performance.now();
    this.waiting.get(exchange.token)?.();
    this.waiting.delete(exchange.token);
  }
}

/**
 * The model in the schedule's and trigger's chats: "re tick ok" to a schedule's turn, and to a
 * trigger's the earliest delivery its request shows unanswered ("re d7 ok"). Undefined elsewhere.
 */
function autonomousAnswer(request: RecordedRequest): FakeStep | undefined {
  const messages = ((request.body as { messages?: ChatMessage[] }).messages ?? []) as ChatMessage[];
  const users = messages.filter((message) => message.role === "user").map((message) => textOf(message.content));
  const frameDelayMs = 5 + Math.floor(Math.random() * 45);
  if (users.some((text) => text.includes("chaos tick")))
    return { type: "reply", text: ["re tick ", "ok"], frameDelayMs };
  if (!users.some((text) => text.includes("chaos hook"))) return undefined;
  const answered = new Set(
    messages
      .filter((message) => message.role === "assistant")
      .flatMap((message) => /\bre (d\d+)\b/.exec(textOf(message.content))?.[1] ?? []),
  );
  const open = users.flatMap((text) => /"delivery": "(d\d+)"/.exec(text)?.[1] ?? []).find((id) => !answered.has(id));
  return { type: "reply", text: [`re ${open ?? "d0"} `, "ok"], frameDelayMs };
}

/** The model: answers the earliest question to it that the request shows open (see the class). */
function answerEarliestOpen(request: RecordedRequest): FakeStep {
  const messages = ((request.body as { messages?: ChatMessage[] }).messages ?? []) as ChatMessage[];
  const me = /You are (\w+)/.exec(messages.map((message) => textOf(message.content)).join("\n"))?.[1] ?? "?";
  // 20 to 200 ms in all, over the reply's few frames.
  const frameDelayMs = 5 + Math.floor(Math.random() * 45);
  const last = messages.at(-1);
  if (last?.role === "tool") {
    const asked = messages.findLast((message) => message.role === "assistant" && message.tool_calls?.length);
    const token = tokenPattern.exec(asked?.tool_calls?.[0]?.function?.arguments ?? "")?.[1] ?? "m0x0";
    return { type: "reply", text: [`re ${token} `, "done"], frameDelayMs };
  }
  const open: { token: string; tool: boolean }[] = [];
  const closed = new Set<string>();
  for (const message of messages) {
    const text = textOf(message.content);
    if (message.role === "user") {
      const asked = new RegExp(`@${me} (say|run) (m\\d+x\\d+)`).exec(text);
      if (asked?.[2] !== undefined && !closed.has(asked[2])) open.push({ token: asked[2], tool: asked[1] === "run" });
    } else if (message.role === "assistant") {
      const named = /\bre (m\d+x\d+)\b/.exec(text)?.[1] ?? tokenPattern.exec(JSON.stringify(message.tool_calls))?.[1];
      const at = named === undefined ? 0 : open.findIndex((question) => question.token === named);
      const [answered] = at < 0 ? [] : open.splice(at, 1);
      if (answered) closed.add(answered.token);
      else if (named !== undefined) closed.add(named);
    }
  }
  const question = open[0];
  if (!question) return { type: "reply", text: ["nothing open"], frameDelayMs };
  if (question.tool)
    return {
      type: "reply",
      toolCalls: [
        {
          id: `call_${question.token}`,
          name: "probe__ping",
          argumentChunks: [JSON.stringify({ token: question.token })],
        },
      ],
      frameDelayMs,
    };
  return { type: "reply", text: [`re ${question.token} `, "ok"], frameDelayMs };
}
