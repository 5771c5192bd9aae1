import { SlackAdapter } from "../../channels/slack/adapter.js";
import type { SlackAdapterOptions } from "../../channels/slack/options.js";
import { createMetrics } from "../../src/metrics/metrics.js";
import { type RunningHttpServer, startHttpServer } from "../../src/http/start-http-server.js";
import { nodeHttpFetch } from "../../src/http/node-http-fetch.js";
import type { StreamObserver } from "../../src/world/channel-adapter.js";
import { type ChatRef, chatKey } from "../../src/world/chat-ref.js";
import { writerFor } from "../../src/world/delivery/channel-writer.js";
import type { ChannelInstallationStore } from "../../src/world/stores/installation-store.js";
import type { Author } from "../../src/world/message.js";
import type { Store } from "../../src/world/store.js";
import { FakeSlack, type FakeSlackSetup, type SlackStoredMessage } from "../fakes/slack-api.js";
import { capturingLogger, InstantClock } from "../telegram/helpers.js";
import { createHarness, type Harness, type HarnessOptions } from "../world/harness.js";

export const botToken = "xoxb-test-token";
export const appToken = "xapp-test-token";
export const signingSecret = "test-signing-secret";
export const channel = "C0TEAM";
export const teamId = "T0FAKE";
/** People in the workspace: ana asks, eve may not decide, olga decides through the `ops` group. */
export const ana = "U1ANA";
export const eve = "U2EVE";
export const olga = "U3OLGA";

export type Mode = "http" | "socket";
export const modes: Mode[] = ["http", "socket"];

export interface WorldSlackOptions extends Omit<HarnessOptions, "channels" | "channelsConfig" | "platform"> {
  mode: Mode;
  adapter?: Partial<SlackAdapterOptions>;
  fake?: Partial<FakeSlackSetup>;
  /** An existing fake (restart tests keep the workspace). */
  reuseFake?: FakeSlack;
  /** `channels.slack.chats` (default `{ "*": "main" }`). */
  chats?: Record<string, string>;
  /** "Add to Slack" instead of one bot token: installations kept in the world's store. */
  oauth?: { clientId: string; clientSecret: string; stateSecret: string; secretKey: string };
}

/** A stream of `author`'s answer as the world opens it (Slack always streams). */
export async function openStream(adapter: SlackAdapter, chat: ChatRef, author: Author, observer?: StreamObserver) {
  const stream = await writerFor(adapter).openStream(chat, author, observer);
  if (!stream) throw new Error("slack opened no stream");
  return stream;
}

/** A Slack thread chat: the thread that a top-level message starts. */
export function threadChat(threadTs: string): ChatRef {
  return { platform: "slack", workspace: teamId, channel, thread: threadTs };
}

export function threadKey(threadTs: string): string {
  return chatKey(threadChat(threadTs));
}

/**
 * The real world engine (SQLite, queue, tool loop, scripted models) with the real Slack
 * adapter (Bolt) on a fake Slack: over HTTP (signed requests to `/slack/events` on the
 * service's HTTP server) or Socket Mode (a WebSocket from `apps.connections.open`).
 */
export interface WorldSlack {
  fake: FakeSlack;
  adapter: SlackAdapter;
  world: Harness;
  lines: Record<string, unknown>[];
  /** The service's HTTP origin (`http://127.0.0.1:<port>`): `/slack/events`, `/slack/install`, … */
  origin: string;
  /** A person writes; resolves when the world has taken it and everything went quiet. */
  say(user: string, text: string, options?: { threadTs?: string; appMention?: boolean }): Promise<SlackStoredMessage>;
  /** Press the card's button whose label matches; resolves once everything went quiet. */
  press(user: string, card: SlackStoredMessage, label: RegExp): Promise<void>;
  settle(): Promise<void>;
  /** The app's posts in a thread (root excluded). */
  replies(threadTs: string): SlackStoredMessage[];
  cards(threadTs: string): SlackStoredMessage[];
  close(options?: { keepFake?: boolean }): Promise<void>;
}

export async function worldOnSlack(options: WorldSlackOptions): Promise<WorldSlack> {
  const fake =
    options.reuseFake ??
    (await FakeSlack.start({
      botToken,
      appToken,
      signingSecret,
      teamId,
      users: [
        { id: ana, name: "ana", displayName: "Ana" },
        { id: eve, name: "eve", displayName: "Eve" },
        { id: olga, name: "olga", displayName: "Olga" },
      ],
      usergroups: [{ id: "S0OPS", handle: "ops", users: [olga] }],
      ...(options.oauth
        ? { oauthApp: { clientId: options.oauth.clientId, clientSecret: options.oauth.clientSecret } }
        : {}),
      ...options.fake,
    }));
  fake.echoBotPosts = true;
  const { logger, lines } = capturingLogger();
  // The store comes with the world, after the adapter: installations go to it once it is there.
  let store: Store | undefined;
  const opened = (): Store => {
    if (!store) throw new Error("the world's store is not open yet");
    return store;
  };
  const installations: ChannelInstallationStore = {
    saveChannelInstallation: (record) => opened().saveChannelInstallation(record),
    findChannelInstallation: (platform, workspace) => opened().findChannelInstallation(platform, workspace),
    deleteChannelInstallation: (platform, workspace) => opened().deleteChannelInstallation(platform, workspace),
  };
  const adapter = new SlackAdapter({
    ...(options.oauth
      ? {
          oauth: {
            settings: {
              clientId: options.oauth.clientId,
              clientSecret: options.oauth.clientSecret,
              stateSecret: options.oauth.stateSecret,
            },
            store: installations,
            secretKey: options.oauth.secretKey,
            authorizationUrl: `${fake.origin}/oauth/v2/authorize`,
          },
        }
      : { botToken }),
    signingSecret,
    ...(options.mode === "socket" ? { appToken } : {}),
    apiUrl: fake.apiUrl,
    // As src/app/create-channels.ts does: Web API calls over node:http, each agent's identity from its config.
    fetch: nodeHttpFetch,
    agents: options.agents.map((agent) => {
      const identity = options.agentConfig?.[agent.name] ?? {};
      return {
        name: agent.name,
        ...(typeof identity.displayName === "string" ? { displayName: identity.displayName } : {}),
        ...(typeof identity.avatarUrl === "string" ? { avatarUrl: identity.avatarUrl } : {}),
      };
    }),
    approverGroups: ["ops"],
    logger,
    clock: new InstantClock(),
    ...options.adapter,
  });
  let http: RunningHttpServer | undefined;
  let world: Harness;
  try {
    http = await startHttpServer({
      port: 0,
      host: "127.0.0.1",
      logger,
      readiness: async () => ({ ok: true, checks: {} }),
      metrics: createMetrics(),
      routes: adapter.webhookRoutes(),
    });
    fake.transport =
      options.mode === "http"
        ? { kind: "http", url: `http://127.0.0.1:${http.port}/slack/events` }
        : { kind: "socket" };
    const {
      mode: _mode,
      adapter: _adapter,
      fake: _fake,
      reuseFake: _reuse,
      chats: _chats,
      oauth: _oauth,
      ...harnessOptions
    } = options;
    world = await createHarness({
      ...harnessOptions,
      channels: [adapter],
      channelsConfig: { slack: { chats: options.chats ?? { "*": "main" } } },
    });
    store = world.store;
  } catch (error) {
    await http?.close();
    if (!options.reuseFake) await fake.close();
    throw error;
  }
  const settle = async (): Promise<void> => {
    for (let round = 0; round < 3; round += 1) {
      await fake.quiet();
      await adapter.idle();
      await world.idle();
    }
  };
  const replies = (threadTs: string) => fake.botPosts(channel, threadTs).filter((message) => message.ts !== threadTs);
  return {
    fake,
    adapter,
    world,
    lines,
    origin: `http://127.0.0.1:${http.port}`,
    settle,
    async say(user, text, sayOptions = {}) {
      const { message, delivery } = await fake.userMessage({
        channel,
        user,
        text,
        ...(sayOptions.threadTs === undefined ? {} : { threadTs: sayOptions.threadTs }),
        ...(sayOptions.appMention ? { appMention: true } : {}),
      });
      if (delivery.status !== 200) throw new Error(`event refused: ${delivery.status} ${delivery.body}`);
      await settle();
      return message;
    },
    async press(user, card, label) {
      const actions = (card.blocks ?? []).find((block) => (block as { type?: string }).type === "actions") as
        | { elements: { action_id: string; value: string; text: { text: string } }[] }
        | undefined;
      const button = actions?.elements.find((element) => label.test(element.text.text));
      if (!button) throw new Error(`no button ${label} on the card`);
      const delivery = await fake.press({
        user,
        channel,
        messageTs: card.ts,
        actionId: button.action_id,
        value: button.value,
      });
      if (delivery.status !== 200) throw new Error(`press refused: ${delivery.status} ${delivery.body}`);
      await settle();
    },
    replies,
    cards: (threadTs) => replies(threadTs).filter((message) => (message.blocks ?? []).length > 0),
    async close(closeOptions = {}) {
      try {
        await world.close();
      } finally {
        await http?.close();
        if (!closeOptions.keepFake && !options.reuseFake) await fake.close();
      }
    },
  };
}
