import { performance } from "node:perf_hooks";
import type { FakeStep, RecordedRequest } from "../tests/fakes/model-fake-server.js";
import { type FakeModelServer, startOpenAIFake } from "../tests/fakes/openai-server.js";
import { type Delivery, FakeSlack, type RecordedSlackCall, type SignedDelivery } from "../tests/fakes/slack-api.js";
import { benchConfigHead, type Exchange, textOf } from "./bench-world.js";
import { benchReply, type ModelLatency, OpenStreams } from "./model-latency.js";
import { type ProbeServer, startProbeServer } from "./probe-mcp-server.js";

const botToken = "xoxb-bench";
const signingSecret = "bench-signing-secret";
const tokenPattern = /\b(m\d+x\d+)\b/;
/** An answer's text as the fake model writes it: `re <token> …`, whole once it ends with `ok`. */
const answerPattern = /\bre (m\d+x\d+) /;
const wholePattern = /\b(?:ok|done)\s*$/;
/** Slack takes a delivery not answered within 3 s as failed. */
const slackTimeoutMs = 3_000;

interface ChatMessage {
  role: string;
  content?: unknown;
}

/**
 * The bench's world on Slack with HTTP events, as behind a load balancer: the Slack fake
 * (`tests/fakes/slack-api.ts`, its Web API and signed Events API deliveries) sends each event to
 * the `/slack/events` URL of the next service process in turn (round robin over every process);
 * a delivery answered with a non-2xx or not within 3 s goes to the next process, with Slack's
 * retry headers. An OpenAI fake answers at once (`re <token> ok`) and an MCP server offers the
 * probe tool, as in the Telegram world ({@link BenchWorld}), so the agent's request is the same.
 */
export class SlackBenchWorld {
  private readonly exchanges = new Map<string, Exchange>();
  private readonly settle = new Map<string, () => void>();
  private targets: string[] = [];
  private next = 0;
  private sequence = 0;
  /** Events each target was sent (first attempts and retries), by URL. */
  readonly deliveriesByTarget = new Map<string, number>();
  /** Deliveries that had to go to another process (a non-2xx answer or a timeout). */
  retries = 0;
  /** How long `send` waits for an answer before it rejects. */
  replyTimeoutMs = 30_000;
  /** The model streams open now (`--model-latency real`: answers in flight). */
  readonly streams = new OpenStreams();

  private constructor(
    readonly slack: FakeSlack,
    readonly model: FakeModelServer,
    readonly probe: ProbeServer,
  ) {}

  static async start(latency: ModelLatency = "instant"): Promise<SlackBenchWorld> {
    const slack = await FakeSlack.start({ botToken, signingSecret });
    let world: SlackBenchWorld | undefined;
    const model = await startOpenAIFake({
      record: false,
      respond: (request) => answer(request, latency),
      onRequest: (request, bytes) => world?.onModelRequest(request, bytes),
      onReplyWritten: () => world?.streams.ended(),
    });
    const probe = await startProbeServer(() => undefined);
    world = new SlackBenchWorld(slack, model, probe);
    slack.transport = { kind: "deliver", deliver: (request) => world.deliver(request) };
    slack.onCall = (call) => world?.onCall(call);
    return world;
  }

  /** The service's config: the Telegram world's agent, Slack over HTTP events. */
  configYaml(): string {
    return [
      ...benchConfigHead(this.model.baseUrl, this.probe.url),
      "channels:",
      "  slack:",
      `    botToken: "${botToken}"`,
      `    signingSecret: "${signingSecret}"`,
      `    apiUrl: "${this.slack.apiUrl}"`,
      '    chats: { "*": main }',
      "",
    ].join("\n");
  }

  /** The service processes' HTTP ports: events go to each in turn. */
  setTargets(ports: number[]): void {
    this.targets = ports.map((port) => `http://127.0.0.1:${port}/slack/events`);
  }

  /** A person writes in the DM `D<chatId>`; resolves when the answer is in it. */
  async send(chatId: number): Promise<Exchange> {
    const token = `m${chatId}x${++this.sequence}`;
    const exchange: Exchange = { token, chatId, sentAt: performance.now(), promptBytes: [] };
    this.exchanges.set(token, exchange);
    const done = new Promise<Exchange>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to ${token} within ${this.replyTimeoutMs} ms`)),
        this.replyTimeoutMs,
      );
      this.settle.set(token, () => {
        clearTimeout(timer);
        this.settle.delete(token);
        this.exchanges.delete(token);
        resolve(exchange);
      });
    });
    const { delivery } = await this.slack.userMessage({
      channel: `D${chatId}`,
      user: `U${chatId}`,
      text: `${token} hello there`,
      channelType: "im",
    });
    if (delivery.status < 200 || delivery.status > 299) throw new Error(`no process took ${token}`);
    return done;
  }

  async close(): Promise<void> {
    await Promise.all([this.slack.close(), this.model.close(), this.probe.close()]);
  }

  /** The load balancer: the next process in turn; on a failure the one after it (a Slack retry). */
  private async deliver(request: SignedDelivery): Promise<Delivery> {
    for (let attempt = 0; attempt < Math.max(3, this.targets.length * 2); attempt++) {
      const target = this.targets[this.next++ % this.targets.length];
      if (target === undefined) break;
      this.deliveriesByTarget.set(target, (this.deliveriesByTarget.get(target) ?? 0) + 1);
      const headers =
        attempt === 0
          ? request.headers
          : { ...request.headers, "x-slack-retry-num": String(attempt), "x-slack-retry-reason": "http_error" };
      try {
        const response = await fetch(target, {
          method: "POST",
          headers,
          body: request.body,
          signal: AbortSignal.timeout(slackTimeoutMs),
        });
        const body = await response.text();
        if (response.ok) return { status: response.status, body };
      } catch {
        // refused or timed out: the next process, as Slack's retry would reach
      }
      this.retries++;
    }
    return { status: 0, body: "" };
  }

  private onCall(call: RecordedSlackCall): void {
    // The fake keeps every call for tests' assertions; the bench needs none of them.
    this.slack.calls.length = 0;
    if (!call.ok || (call.method !== "chat.postMessage" && call.method !== "chat.update")) return;
    const text = String(call.params.text ?? "");
    const token = answerPattern.exec(text)?.[1];
    const exchange = token === undefined ? undefined : this.exchanges.get(token);
    if (!exchange) return;
    exchange.firstWordsAt ??= performance.now();
    if (!wholePattern.test(text)) return;
    exchange.replyAt ??= performance.now();
    this.settle.get(exchange.token)?.();
  }

  private onModelRequest(request: RecordedRequest, bytes: number): void {
    this.streams.started();
    const messages = ((request.body as { messages?: ChatMessage[] }).messages ?? []) as ChatMessage[];
    const lastUser = messages.findLast((message) => message.role === "user");
    const token = tokenPattern.exec(textOf(lastUser?.content))?.[1];
    const exchange = token === undefined ? undefined : this.exchanges.get(token);
    if (!exchange) return;
    exchange.modelRequestAt ??= performance.now();
    exchange.promptBytes.push(bytes);
  }
}

function answer(request: RecordedRequest, latency: ModelLatency): FakeStep {
  const messages = ((request.body as { messages?: ChatMessage[] }).messages ?? []) as ChatMessage[];
  const lastUser = messages.findLast((message) => message.role === "user");
  const token = tokenPattern.exec(textOf(lastUser?.content))?.[1] ?? "m0x0";
  return benchReply(token, latency);
}
