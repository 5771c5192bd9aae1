import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { type ProbeServer, startProbeServer } from "../../bench/probe-mcp-server.js";
import type { FakeStep, RecordedRequest } from "../fakes/model-fake-server.js";
import { type FakeModelServer, startOpenAIFake } from "../fakes/openai-server.js";
import { type Delivery, FakeSlack, type RecordedSlackCall, type SignedDelivery } from "../fakes/slack-api.js";

const botToken = "xoxb-chaos";
const signingSecret = "chaos-signing-secret";
const tokenPattern = /\b(m\d+x\d+)\b/;
/** Slack answers a delivery that took longer than this as failed, and retries it. */
const slackTimeoutMs = 3_000;
/**
 * Slack retries a failed delivery three times (`X-Slack-Retry-Num` 1 to 3) over about five
 * minutes; here sooner and more often, over about two minutes (while the killer is at work,
 * every process may be starting, not yet listening, for a while).
 */
const retryDelaysMs = [500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000, 60_000];

interface ChatMessage {
  role: string;
  content?: unknown;
}

/**
 * The chaos run's world on Slack: the Slack fake, which delivers each signed event (and button
 * press) over HTTP to one live process chosen at random and delivers it again, to another
 * random pick, after a non-2xx answer or 3 s without one (`X-Slack-Retry-Num`), as Slack does;
 * an OpenAI fake that answers at once (`re <token> ok`, or a call of the probe tool then
 * `re <token> done`); the probe MCP server, which counts tool runs.
 */
export class SlackChaosWorld {
  private readonly waiting = new Map<string, () => void>();
  private sequence = 0;
  /** How many times the probe tool started, by message token. */
  readonly toolRuns = new Map<string, number>();
  /** Deliveries that no process took after every retry. */
  readonly undelivered: string[] = [];
  /** Every delivery attempt: where it went and how it was answered (kept with `--logs`). */
  readonly deliveries: { at: number; target?: string; retry: number; status: number | string; body: string }[] = [];
  /** The `/slack/events` URLs of the processes alive now (set by the harness). */
  liveTargets: () => string[] = () => [];
  replyTimeoutMs = 180_000;

  private constructor(
    readonly slack: FakeSlack,
    readonly model: FakeModelServer,
    readonly probe: ProbeServer,
  ) {}

  static async start(): Promise<SlackChaosWorld> {
    const slack = await FakeSlack.start({ botToken, signingSecret });
    let world: SlackChaosWorld | undefined;
    const model = await startOpenAIFake({ record: false, respond: (request) => answer(request) });
    const probe = await startProbeServer((token) => world?.onToolStart(token));
    world = new SlackChaosWorld(slack, model, probe);
    slack.transport = { kind: "deliver", deliver: (request) => world.deliver(request) };
    slack.onCall = (call, body) => world?.onCall(call, body);
    return world;
  }

  /** The service's config: one agent that may call the probe tool, Slack over HTTP events. */
  configYaml(): string {
    return [
      "providers:",
      `  openai: { apiKey: sk-chaos, baseUrl: "${this.model.baseUrl}" }`,
      "agents:",
      "  - name: alice",
      "    provider: openai",
      "    model: gpt-4.1",
      "    systemPrompt: You are alice.",
      '    tools: ["probe__ping"]',
      "worlds:",
      "  - name: main",
      "    agents: [alice]",
      "    defaultAgent: alice",
      "    limits: { messagesPerMinute: 1000000 }",
      "tools:",
      "  mcpServers:",
      `    probe: { url: "${this.probe.url}" }`,
      "channels:",
      "  slack:",
      `    botToken: "${botToken}"`,
      `    signingSecret: "${signingSecret}"`,
      `    apiUrl: "${this.slack.apiUrl}"`,
      '    chats: { "*": main }',
      "",
    ].join("\n");
  }

  /** The direct-message channel of chat `chatId`. */
  channelOf(chatId: number): string {
    return `D${chatId}`;
  }

  /** The app's posts in chat `chatId` that answer a message (cards left out), in order. */
  answersIn(chatId: number): { token: string; text: string; messageId: string }[] {
    const answers: { token: string; text: string; messageId: string }[] = [];
    for (const message of this.slack.botPosts(this.channelOf(chatId))) {
      if (onceButton(message.blocks) !== undefined) continue;
      const token = /\bre (m\d+x\d+)\b/.exec(message.text)?.[1];
      if (token !== undefined) answers.push({ token, text: message.text, messageId: message.ts });
    }
    return answers;
  }

  /** A person writes in chat `chatId`; resolves with the message's token when its answer shows. */
  async send(chatId: number, tool: boolean): Promise<string> {
    const token = `m${chatId}x${++this.sequence}`;
    const answered = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to ${token} within ${this.replyTimeoutMs} ms`)),
        this.replyTimeoutMs,
      );
      this.waiting.set(token, () => {
        clearTimeout(timer);
        this.waiting.delete(token);
        resolve();
      });
    });
    await this.slack.userMessage({
      channel: this.channelOf(chatId),
      user: `U${chatId}`,
      text: `${token} ${tool ? "please ping" : "hello there"}`,
      channelType: "im",
    });
    await answered;
    return token;
  }

  async close(): Promise<void> {
    await Promise.all([this.slack.close(), this.model.close(), this.probe.close()]);
  }

  /** Slack's delivery: a random live process; on a non-2xx or a timeout, again (retry number in a header). */
  private async deliver(request: SignedDelivery): Promise<Delivery> {
    for (let attempt = 0; ; attempt++) {
      const targets = this.liveTargets();
      const target = targets[Math.floor(Math.random() * targets.length)];
      const headers = attempt === 0 ? request.headers : { ...request.headers, "x-slack-retry-num": String(attempt) };
      if (attempt > 0) headers["x-slack-retry-reason"] = "http_error";
      if (target !== undefined) {
        try {
          const response = await fetch(target, {
            method: "POST",
            headers,
            body: request.body,
            signal: AbortSignal.timeout(slackTimeoutMs),
          });
          const body = await response.text();
          this.deliveries.push({
            at: performance.now(),
            target,
            retry: attempt,
            status: response.status,
            body: request.body.slice(0, 300),
          });
          if (response.ok) return { status: response.status, body };
        } catch (error) {
          // refused (killed) or timed out: retried like any failure
          this.deliveries.push({
            at: performance.now(),
            target,
            retry: attempt,
            status: `${String(error)} ${String((error as { cause?: unknown }).cause)}`,
            body: request.body.slice(0, 300),
          });
        }
      }
      const delay = retryDelaysMs[attempt];
      if (delay === undefined) {
        this.undelivered.push(request.body.slice(0, 200));
        return { status: 0, body: "" };
      }
      await sleep(delay);
    }
  }

  private onCall(call: RecordedSlackCall, body: Record<string, unknown>): void {
    if (!call.ok || (call.method !== "chat.postMessage" && call.method !== "chat.update")) return;
    const text = String(call.params.text ?? "");
    const once = onceButton(call.params.blocks);
    if (once !== undefined && call.method === "chat.postMessage") {
      // The person approves the card as soon as it shows.
      void this.slack
        .press({
          user: `U${String(call.params.channel).slice(1)}`,
          channel: String(call.params.channel),
          messageTs: String(body.ts),
          actionId: once.actionId,
          value: once.value,
        })
        .catch(() => undefined);
      return;
    }
    const token = tokenPattern.exec(text)?.[1];
    if (token === undefined) return;
    if (new RegExp(`\\bre ${token} (ok|done)\\b`).test(text)) this.waiting.get(token)?.();
  }

  private onToolStart(token: string): void {
    this.toolRuns.set(token, (this.toolRuns.get(token) ?? 0) + 1);
  }
}

function answer(request: RecordedRequest): FakeStep {
  const messages = ((request.body as { messages?: ChatMessage[] }).messages ?? []) as ChatMessage[];
  const last = messages.at(-1);
  const lastUser = messages.findLast((message) => message.role === "user");
  const text = textOf(lastUser?.content);
  const token = tokenPattern.exec(text)?.[1] ?? "m0x0";
  if (last?.role === "tool") return { type: "reply", text: [`re ${token} done`] };
  if (text.includes("please ping"))
    return {
      type: "reply",
      toolCalls: [{ id: `call_${token}`, name: "probe__ping", argumentChunks: [JSON.stringify({ token })] }],
    };
  return { type: "reply", text: [`re ${token} `, "ok"] };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part?.text === "string" ? (part.text as string) : "")).join("");
  return "";
}

/** The `once` button of an approval card's blocks, if any. */
function onceButton(blocks: unknown): { actionId: string; value: string } | undefined {
  const parsed = typeof blocks === "string" ? (JSON.parse(blocks) as unknown) : blocks;
  if (!Array.isArray(parsed)) return undefined;
  for (const block of parsed as { elements?: { action_id?: string; value?: string }[] }[])
    for (const element of block.elements ?? [])
      if (element.action_id === "roundtable_approval_once" && element.value !== undefined)
        return { actionId: element.action_id, value: element.value };
  return undefined;
}
