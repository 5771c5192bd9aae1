/** What the fake Slack keeps about one message. */
export interface SlackStoredMessage {
  channel: string;
  ts: string;
  /** Set on replies (and on a root once it has replies, as Slack does). */
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  /** The workspace of an app that posted it, when not the fake's first one. */
  team?: string;
  username?: string;
  icon_url?: string;
  text: string;
  blocks?: unknown[];
  /** How many times `chat.update` (or a stream append) changed it. */
  updateCount: number;
  deleted: boolean;
  /** Every text it had, oldest first. */
  history: string[];
  /** A native stream (`chat.startStream`) still open. */
  streaming?: boolean;
  /** Every chunk a native stream carried (`chunks` of start, append and stop), in order. */
  chunks?: Record<string, unknown>[];
  /** Message metadata (`chat.postMessage`/`chat.update` `metadata`), shown with `include_all_metadata`. */
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
}

export interface SlackEphemeral {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
}

export interface SlackUploadedFile {
  id: string;
  filename: string;
  title?: string;
  content: string;
  /** The uploaded bytes as they came (`content` is them read as UTF-8). */
  bytes?: Uint8Array;
  channel?: string;
  thread_ts?: string;
  initialComment?: string;
}

/** The fake's messages, per channel, in the order they were posted. */
export class SlackMessages {
  private readonly all: SlackStoredMessage[] = [];
  private clock = 1_800_000_000;
  private counter = 0;

  /** A fresh, increasing Slack timestamp (`seconds.micros`). */
  nextTs(): string {
    this.counter += 1;
    return `${this.clock + this.counter}.${String(this.counter).padStart(6, "0")}`;
  }

  add(message: Omit<SlackStoredMessage, "ts" | "updateCount" | "deleted" | "history"> & { ts?: string }) {
    const stored: SlackStoredMessage = {
      ...message,
      ts: message.ts ?? this.nextTs(),
      updateCount: 0,
      deleted: false,
      history: [message.text],
    };
    this.all.push(stored);
    return stored;
  }

  find(channel: string, ts: string): SlackStoredMessage | undefined {
    return this.all.find((message) => message.channel === channel && message.ts === ts);
  }

  /** Top-level messages of a channel, or the messages of one thread (root first). */
  list(channel: string, threadTs?: string): SlackStoredMessage[] {
    return this.all.filter(
      (message) =>
        message.channel === channel &&
        !message.deleted &&
        (threadTs === undefined
          ? message.thread_ts === undefined || message.thread_ts === message.ts
          : message.ts === threadTs || message.thread_ts === threadTs),
    );
  }

  everything(): SlackStoredMessage[] {
    return [...this.all];
  }
}
