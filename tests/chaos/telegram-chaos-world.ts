import { performance } from "node:perf_hooks";
import { BenchWorld } from "../../bench/bench-world.js";
import type { Life, Post } from "./judge-doubles.js";
import { processOfPort } from "./process-of-port.js";

/**
 * The chaos run's world on Telegram: the bench's world (the Telegram fake long-polled by the
 * service, an instant OpenAI fake, the probe tool), plus a record of every accepted
 * `sendMessage` with the process that sent it, so that a double can be judged against the
 * platform's window.
 */
export class TelegramChaosWorld {
  /** Every `sendMessage` the fake accepted, with its sender. */
  readonly posts: Post[] = [];
  /** Which process each connection to the fake comes from (see process-of-port.ts). */
  private readonly ownerOfPort = new Map<number, number>();

  private constructor(
    readonly bench: BenchWorld,
    lives: () => readonly Life[],
  ) {
    const telegramPort = Number(new URL(bench.telegram.apiRoot).port);
    bench.telegram.onConnection = (remotePort) => {
      const alive = lives()
        .filter((life) => life.killedAt === undefined)
        .map((life) => life.pid);
      const pid = processOfPort(remotePort, telegramPort, alive);
      if (pid === undefined) this.ownerOfPort.delete(remotePort);
      else this.ownerOfPort.set(remotePort, pid);
    };
    const benchOnCall = bench.telegram.onCall;
    bench.telegram.onCall = (call) => {
      if (call.ok && call.method === "sendMessage") {
        const result = call.result as { message_id?: number } | undefined;
        this.posts.push({
          at: performance.now(),
          chatId: Number(call.params.chat_id),
          messageId: result?.message_id ?? 0,
          text: String(call.params.text ?? ""),
          pid: call.remotePort === undefined ? undefined : this.ownerOfPort.get(call.remotePort),
        });
      }
      benchOnCall?.(call);
    };
  }

  static async start(lives: () => readonly Life[]): Promise<TelegramChaosWorld> {
    const bench = await BenchWorld.start();
    bench.replyTimeoutMs = 90_000;
    return new TelegramChaosWorld(bench, lives);
  }

  get toolRuns(): Map<string, number> {
    return this.bench.toolRuns;
  }

  configYaml(): string {
    return this.bench.configYaml();
  }

  /** Resolves when a process polls. */
  async ready(): Promise<void> {
    await this.bench.firstPollAt();
  }

  async send(chatId: number, tool: boolean): Promise<string> {
    return (await this.bench.send(chatId, tool)).token;
  }

  /** The bot's answers in chat `chatId` (cards and the world's notices left out), in order. */
  answersIn(chatId: number): { token: string; text: string; messageId: string }[] {
    const answers: { token: string; text: string; messageId: string }[] = [];
    for (const message of this.bench.telegram.messagesIn(chatId)) {
      if (message.sentByToken === undefined || message.reply_markup !== undefined) continue; // people, cards
      const token = /\bre (m\d+x\d+)\b/.exec(message.text)?.[1];
      if (token !== undefined) answers.push({ token, text: message.text, messageId: String(message.message_id) });
    }
    return answers;
  }

  close(): Promise<void> {
    return this.bench.close();
  }
}
