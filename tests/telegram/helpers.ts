import { TelegramAdapter } from "../../channels/telegram/adapter.js";
import type { TelegramAdapterOptions } from "../../channels/telegram/options.js";
import type { ChannelClock as TelegramClock } from "../../src/world/channel-adapter.js";
import { createLogger, type Logger } from "../../src/log/logger.js";
import type {
  ApprovalClick,
  ClickResult,
  CommandResult,
  InboundCommand,
  InboundMessage,
  InboundSink,
  IngressResult,
} from "../../src/world/inbound.js";
import { FakeTelegramApi, type FakeUser } from "../fakes/telegram-api.js";

export const mainToken = "1000:main-token";
export const aliceToken = "1001:alice-token";
export const groupId = -1001234;
export const forumId = -1005678;
export const ana: FakeUser = { id: 111, is_bot: false, first_name: "Ana", username: "ana_r" };
export const eve: FakeUser = { id: 666, is_bot: false, first_name: "Eve" };

/** The world's side of the port, recorded. Dedupes on chat + platform id like the ingress does. */
export class RecordingSink implements InboundSink {
  readonly messages: InboundMessage[] = [];
  readonly accepted: InboundMessage[] = [];
  readonly clicks: ApprovalClick[] = [];
  /** Make the next N `message` calls throw (the world's storage failing). */
  failNextMessages = 0;
  /** The error those failures throw (default: a plain one, as a bug in handling would). */
  failWith: () => Error = () => new Error("storage unavailable");
  clickResult: (click: ApprovalClick) => ClickResult = () => ({ status: "decided", text: "Approved once." });
  private readonly seen = new Set<string>();

  /** While set, `message` waits for it (the world being slow). */
  gate: Promise<void> | undefined;

  /** While it returns a promise for a message, that message waits for it (one chat being slow). */
  gateOf: (message: InboundMessage) => Promise<void> | undefined = () => undefined;

  async message(message: InboundMessage): Promise<IngressResult> {
    this.messages.push(message);
    await this.gate;
    await this.gateOf(message);
    if (this.failNextMessages > 0) {
      this.failNextMessages -= 1;
      throw this.failWith();
    }
    const key = `${message.chat.channel}:${message.chat.thread ?? ""}:${message.platformMessageId}`;
    if (this.seen.has(key)) return { status: "duplicate" };
    this.seen.add(key);
    this.accepted.push(message);
    return { status: "accepted", messageId: key };
  }

  /** While set, `click` waits for it (the world being slow to store a decision). */
  clickGate: Promise<void> | undefined;

  /** Make the next N `click` calls throw `failWith()`. */
  failNextClicks = 0;

  async click(click: ApprovalClick): Promise<ClickResult> {
    this.clicks.push(click);
    await this.clickGate;
    if (this.failNextClicks > 0) {
      this.failNextClicks -= 1;
      throw this.failWith();
    }
    return this.clickResult(click);
  }

  readonly commands: InboundCommand[] = [];

  async command(command: InboundCommand): Promise<CommandResult> {
    this.commands.push(command);
    return { status: "done", text: `/${command.name} done.` };
  }
}

export { ManualClock } from "../fakes/manual-clock.js";

/** A clock whose sleeps return at once (after moving time), recording each wait. */
export class InstantClock implements TelegramClock {
  private time = 1_800_000_000_000;
  readonly sleeps: number[] = [];

  now(): number {
    return this.time;
  }

  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.time += ms;
  }
}

/** A logger whose JSON lines the test can read. */
export function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: "debug",
    destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

export interface Harness {
  fake: FakeTelegramApi;
  adapter: TelegramAdapter;
  sink: RecordingSink;
  lines: Record<string, unknown>[];
  makeAdapter(overrides?: Partial<TelegramAdapterOptions>): TelegramAdapter;
  close(): Promise<void>;
}

/** A fake Bot API with a main bot ("roundtable_bot"), an agent bot ("alice_rt_bot") and three chats. */
export async function harness(overrides: Partial<TelegramAdapterOptions> = {}): Promise<Harness> {
  const fake = await FakeTelegramApi.start([
    { token: mainToken, username: "roundtable_bot", firstName: "Roundtable", canReadAllGroupMessages: true },
    { token: aliceToken, username: "alice_rt_bot", firstName: "Alice" },
  ]);
  fake.addChat({ id: groupId, type: "supergroup", title: "Release team" });
  fake.addChat({ id: forumId, type: "supergroup", title: "Ops", is_forum: true });
  fake.addChat({ id: ana.id, type: "private", first_name: "Ana" });
  const { logger, lines } = capturingLogger();
  const adapters: TelegramAdapter[] = [];
  const makeAdapter = (more: Partial<TelegramAdapterOptions> = {}): TelegramAdapter => {
    const adapter = new TelegramAdapter({
      token: mainToken,
      apiRoot: fake.apiRoot,
      logger,
      agentNames: ["alice", "bob"],
      pollingTimeoutSeconds: 1,
      clock: new InstantClock(),
      ...overrides,
      ...more,
    });
    adapters.push(adapter);
    return adapter;
  };
  const adapter = makeAdapter();
  return {
    fake,
    adapter,
    sink: new RecordingSink(),
    lines,
    makeAdapter,
    async close() {
      for (const each of adapters) await each.stop();
      await fake.close();
    },
  };
}

/** Log lines whose message matches. */
export function logsMatching(lines: Record<string, unknown>[], pattern: RegExp): Record<string, unknown>[] {
  return lines.filter((line) => typeof line.msg === "string" && pattern.test(line.msg));
}
