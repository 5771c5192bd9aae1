import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { buildParts } from "../../src/app/build-parts.js";
import { Roundtable } from "../../src/app/roundtable.js";
import { configSchema, type WorldConfig } from "../../src/config/schema.js";
import { migrateDatabase } from "../../src/storage/migrate.js";
import { openStore, type StoredWorkQueue } from "../../src/storage/open-store.js";
import type { Store } from "../../src/world/store.js";
import type { ChannelAdapter } from "../../src/world/channel-adapter.js";
import type { ChatRef, Platform } from "../../src/world/chat-ref.js";
import type { ApprovalChoice, ClickResult, IngressResult } from "../../src/world/inbound.js";
import { RecordingChannel } from "../fakes/recording-channel.js";
import { inFlightOf } from "../../src/world/queue/step-slots.js";
import type { ModelProvider } from "../../src/providers/model-provider.js";

export interface HarnessAgent {
  name: string;
  provider: ModelProvider;
  /** The provider's config name (default `fake-<agent>`) and wire type (default openai). */
  providerName?: string;
  providerType?: string;
  tools?: string[];
  limits?: Record<string, unknown>;
}

export interface HarnessOptions {
  agents: HarnessAgent[];
  world?: Partial<Omit<WorldConfig, "approvalTimeout">> & { approvalTimeout?: number | string };
  tools?: Record<string, unknown>;
  /** The platform the test chat is on (default console). */
  platform?: Platform;
  databaseUrl?: string;
  /** Where else the service's state lies, hidden from sandboxed tool calls (the database is always). */
  serviceState?: { configPath?: string; cwd?: string };
  /** Keep the database file on close (restart tests). */
  keepDatabase?: boolean;
  concurrency?: number;
  /**
   * The `queue` section (`concurrency`: the step slots; `inFlight`): the queue then runs
   * `inFlight` steps at once, as the service does, instead of {@link concurrency}.
   */
  queue?: { concurrency?: number; inFlight?: number };
  /** Real platform adapters to run besides the recording channel (e.g. Telegram on its fake API). */
  channels?: ChannelAdapter[];
  /** How long a refused delivery holds the chat (default the service's). */
  deliveryHoldMs?: number;
  /** Extra config (e.g. `channels.telegram.chats`). */
  channelsConfig?: Record<string, unknown>;
  /** Extra fields per agent config (e.g. `telegram: { token }`). */
  agentConfig?: Record<string, Record<string, unknown>>;
  /** The world's clock (default the real one); the queue keeps real time. */
  worldClock?: () => Date;
  /** The `files` section (caps, `transcribe`). */
  files?: Record<string, unknown>;
  /** The top-level `hooks` section (a policy module, docs/hooks.md). */
  hooks?: Record<string, unknown>;
  /** More `providers` besides the agents' (e.g. one for `files.transcribe`). */
  providers?: Record<string, Record<string, unknown>>;
  /** `schedules` and `triggers` of the config (docs/schedules-and-triggers.md). */
  autonomous?: { schedules?: unknown[]; triggers?: unknown[] };
}

export interface SayOptions {
  id?: string;
  user?: string;
  channel?: string;
  bot?: boolean;
  replyTo?: string;
  /** The sender's platform handle. */
  handle?: string;
  /** Roles the platform reports with the sender. */
  roles?: string[];
}

export interface ClickOptions {
  user?: string;
  channel?: string;
  roles?: string[];
  reason?: string;
  /** For `edit`: the edited arguments (JSON text). */
  editedArgumentsJson?: string;
  /** The platform's id of the press (ingress dedupes on it). */
  eventId?: string;
}

export interface Harness {
  roundtable: Roundtable;
  store: Store;
  /** The stored queue (which steps were queued: `jobStatus`). */
  queue: StoredWorkQueue;
  channel: RecordingChannel;
  databaseUrl: string;
  /** The world's workdir (a temporary directory). */
  workdir: string;
  say(text: string, options?: SayOptions): Promise<IngressResult>;
  click(approvalId: string, choice: ApprovalChoice, options?: ClickOptions): Promise<ClickResult>;
  chat(channel?: string): ChatRef;
  idle(): Promise<void>;
  waitFor(condition: () => boolean | Promise<boolean>, timeoutMs?: number): Promise<void>;
  logs(): string;
  /** SQL statements the store and queue have sent so far (`OpenedStore.statementCount`). */
  statementCount(): number;
  close(): Promise<void>;
}

function providerNameOf(agent: HarnessAgent): string {
  return agent.providerName ?? `fake-${agent.name}`;
}

/** A temporary SQLite database URL. */
export function temporaryDatabaseUrl(): string {
  return `file:${path.join(mkdtempSync(path.join(tmpdir(), "rt-world-")), "roundtable.db")}`;
}

/** Open (and migrate) a store on a database, for assertions outside a harness. */
export async function openTestStore(databaseUrl: string) {
  const logger = pino({ level: "silent" });
  await migrateDatabase({ databaseUrl, logger });
  const opened = await openStore({ databaseUrl, logger });
  return { store: opened.store, close: () => opened.close() };
}

/**
 * A Roundtable with scripted models, the real store (SQLite), the real queue and tools, and a
 * recording channel standing in for a platform.
 */
export async function createHarness(options: HarnessOptions): Promise<Harness> {
  const databaseUrl = options.databaseUrl ?? temporaryDatabaseUrl();
  const platform = options.platform ?? "console";
  let logText = "";
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logText += chunk.toString();
      callback();
    },
  });
  const logger = pino({ level: process.env.LOG_LEVEL ?? "info" }, sink);
  const workdir = mkdtempSync(path.join(tmpdir(), "rt-work-"));
  const config = configSchema.parse({
    providers: {
      ...Object.fromEntries(
        options.agents.map((agent) => [
          providerNameOf(agent),
          { type: agent.providerType ?? "openai", apiKey: "test" },
        ]),
      ),
      ...options.providers,
    },
    agents: options.agents.map((agent) => ({
      name: agent.name,
      provider: providerNameOf(agent),
      model: "scripted-1",
      systemPrompt: `You are ${agent.name}.`,
      tools: agent.tools ?? [],
      ...(agent.limits === undefined ? {} : { limits: agent.limits }),
      ...(options.agentConfig?.[agent.name] ?? {}),
    })),
    worlds: [
      {
        name: "main",
        agents: options.agents.map((agent) => agent.name),
        workdir,
        ...options.world,
      },
    ],
    tools: options.tools ?? {},
    channels: options.channelsConfig ?? {},
    ...(options.files === undefined ? {} : { files: options.files }),
    ...options.autonomous,
    ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
    ...(options.queue === undefined ? {} : { queue: options.queue }),
  });
  await migrateDatabase({ databaseUrl, logger });
  const opened = await openStore({ databaseUrl, logger });
  const queue = opened.createQueue({
    concurrency: options.queue === undefined ? (options.concurrency ?? 4) : inFlightOf(config.queue),
  });
  const channel = new RecordingChannel(platform);
  const parts = await buildParts(config, logger, {
    state: { databaseUrl, ...options.serviceState },
    providers: new Map(
      options.agents.map((agent) => [
        providerNameOf(agent),
        { provider: agent.provider, type: agent.providerType ?? "openai" },
      ]),
    ),
  });
  const roundtable = new Roundtable({
    ...parts,
    config,
    store: opened.store,
    queue,
    logger,
    channels: [channel, ...(options.channels ?? [])],
    stopGraceMs: 2_000,
    ...(options.deliveryHoldMs === undefined ? {} : { deliveryHoldMs: options.deliveryHoldMs }),
    ...(options.worldClock === undefined ? {} : { clock: options.worldClock }),
  });
  await roundtable.start();
  let counter = 0;
  const chat = (channelId?: string): ChatRef =>
    platform === "console"
      ? { platform, workspace: "main", channel: channelId ?? "ana" }
      : { platform, channel: channelId ?? "chat-1" };
  let closed = false;
  return {
    roundtable,
    store: opened.store,
    queue,
    channel,
    databaseUrl,
    workdir,
    chat,
    statementCount: () => opened.statementCount(),
    say(text, sayOptions = {}) {
      counter += 1;
      const user = sayOptions.user ?? "ana";
      return channel.send({
        chat: chat(sayOptions.channel),
        platformMessageId: sayOptions.id ?? `m-${Date.now()}-${counter}`,
        sender: {
          id: user,
          displayName: user,
          isBot: sayOptions.bot ?? false,
          ...(sayOptions.handle === undefined ? {} : { handle: sayOptions.handle }),
          ...(sayOptions.roles === undefined ? {} : { roles: sayOptions.roles }),
        },
        text,
        mentions: [],
        ...(sayOptions.replyTo === undefined ? {} : { replyTo: sayOptions.replyTo }),
        receivedAt: new Date(),
        raw: { text },
      });
    },
    click(approvalId, choice, clickOptions = {}) {
      const user = clickOptions.user ?? "ana";
      return channel.click({
        chat: chat(clickOptions.channel),
        approvalId,
        choice,
        user: {
          id: user,
          displayName: user,
          isBot: false,
          ...(clickOptions.roles ? { roles: clickOptions.roles } : {}),
        },
        ...(clickOptions.reason === undefined ? {} : { reason: clickOptions.reason }),
        ...(clickOptions.editedArgumentsJson === undefined
          ? {}
          : { editedArgumentsJson: clickOptions.editedArgumentsJson }),
        ...(clickOptions.eventId === undefined ? {} : { platformEventId: clickOptions.eventId }),
        raw: {},
      });
    },
    idle: () => roundtable.whenIdle(),
    async waitFor(condition, timeoutMs = 20_000) {
      const started = Date.now();
      while (!(await condition())) {
        if (Date.now() - started > timeoutMs) throw new Error("condition not met in time");
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    logs: () => logText,
    async close() {
      if (closed) return;
      closed = true;
      await roundtable.stop();
      await opened.close();
    },
  };
}
