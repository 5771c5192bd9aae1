import type {
  OperatorUsage,
  OperatorApproval,
  OperatorChat,
  OperatorSnapshot,
  OperatorSource,
} from "../../channels/web/operator-snapshot.js";
import { configSecrets } from "../config/config-secrets.js";
import type { Config } from "../config/schema.js";
import { secretRedactor } from "../log/redact-secrets.js";
import type { ApprovalRecord } from "../world/records.js";
import type { Store } from "../world/store.js";
import { chatKey, parseChatKey } from "../world/chat-ref.js";
import type { StoredEvent } from "../world/events.js";
import { utcDay } from "../world/limits/utc-day.js";

export interface OperatorSourceSetup {
  config: Config;
  store: Store;
  /** Every channel adapter of the process and whether it is connected now. */
  channels: () => { platform: string; connected: boolean }[];
  clock?: () => Date;
  /** Takes secrets out of what the view shows (default: the logs' redactor with the config's secrets). */
  redact?: (text: string) => string;
}

/** How far back the view looks: the newest events of every chat. */
const recentEvents = 1000;
const maxChats = 20;
const historyWindowMs = 7 * 24 * 3_600_000;
const messagesPerChat = 3;

/** Who may decide an approval of a chat, in words, from the world's approvers for its platform. */
export function describeDeciders(config: Config, approval: ApprovalRecord): string {
  let platform: string;
  try {
    platform = parseChatKey(approval.chatKey).platform;
  } catch {
    platform = "unknown";
  }
  if (platform === "console") return "the local user";
  const world = config.worlds.find((candidate) => candidate.name === approval.world);
  // No list means only the requester; a list without `requester` means only those listed.
  const listed = world?.approvers[platform] ?? ["requester"];
  return listed
    .map((entry) => (entry === "requester" ? `requester (${approval.requestedFor})` : entry === "*" ? "anyone" : entry))
    .join(", ");
}

/**
 * The operator view's data, read from the config, the store and the channels on each request,
 * with tool arguments, messages and errors through the same redactor as the logs (the
 * configured secrets and key shapes), for the page and `?format=json` alike.
 */
export function createOperatorSource(setup: OperatorSourceSetup): OperatorSource {
  const source = readOperatorSource(setup);
  const redact = setup.redact ?? secretRedactor(configSecrets(setup.config));
  return { snapshot: async () => redactSnapshot(await source.snapshot(), redact) };
}

function redactSnapshot(snapshot: OperatorSnapshot, redact: (text: string) => string): OperatorSnapshot {
  const approval = (entry: OperatorApproval): OperatorApproval => ({
    ...entry,
    argumentsJson: redact(entry.argumentsJson),
  });
  return {
    ...snapshot,
    chats: snapshot.chats.map((chat) => ({
      ...chat,
      lastMessages: chat.lastMessages.map((message) => ({ ...message, text: redact(message.text) })),
    })),
    pendingApprovals: snapshot.pendingApprovals.map(approval),
    approvalHistory: snapshot.approvalHistory.map(approval),
    errors: snapshot.errors.map((error) => ({ ...error, text: redact(error.text) })),
  };
}

function readOperatorSource(setup: OperatorSourceSetup): OperatorSource {
  const { config, store } = setup;
  return {
    async snapshot(): Promise<OperatorSnapshot> {
      const now = (setup.clock ?? (() => new Date()))();
      const events = await store.listRecentEvents(recentEvents);
      const toApproval = async (approval: ApprovalRecord): Promise<OperatorApproval> => {
        const call = await store.getToolCall(approval.toolCallId);
        const result = approval.state === "pending" ? undefined : await store.getToolResult(approval.toolCallId);
        return {
          approvalId: approval.id,
          shortId: approval.shortId,
          chatKey: approval.chatKey,
          world: approval.world,
          agent: approval.agent,
          tool: call?.name ?? "unknown tool",
          argumentsJson: call?.argumentsJson ?? "",
          state: approval.state,
          deciders: describeDeciders(config, approval),
          requestedFor: approval.requestedFor,
          createdAt: approval.createdAt,
          expiresAt: approval.expiresAt,
          ...(approval.decidedByName === undefined ? {} : { decidedBy: approval.decidedByName }),
          ...(approval.choice === undefined ? {} : { choice: approval.choice }),
          ...(approval.decidedAt === undefined ? {} : { decidedAt: approval.decidedAt }),
          ...(result === undefined ? {} : { resultKind: result.kind }),
        };
      };
      const pending = await store.listApprovals({ states: ["pending"] });
      // The history looks back a week (read from the audit's index), not over every approval ever.
      const decided = (await store.listApprovalsSince(new Date(now.getTime() - historyWindowMs)))
        .filter((approval) => approval.state !== "pending")
        .sort((a, b) => (b.decidedAt?.getTime() ?? 0) - (a.decidedAt?.getTime() ?? 0))
        .slice(0, 30);
      return {
        generatedAt: now,
        worlds: config.worlds.map((world) => ({
          name: world.name,
          ...(world.defaultAgent === undefined ? {} : { defaultAgent: world.defaultAgent }),
          agents: world.agents.map((name) => {
            const agent = config.agents.find((candidate) => candidate.name === name);
            return {
              name,
              displayName: agent?.displayName ?? name,
              ...(agent?.avatarUrl === undefined ? {} : { avatarUrl: agent.avatarUrl }),
              provider: agent?.provider ?? "",
              model: agent?.model ?? "",
            };
          }),
        })),
        channels: setup.channels().map((channel) => {
          const last = lastReceived(events, channel.platform);
          return { ...channel, ...(last === undefined ? {} : { lastReceivedAt: last }) };
        }),
        chats: await recentChats(store, events),
        pendingApprovals: await Promise.all(pending.map(toApproval)),
        approvalHistory: await Promise.all(decided.map(toApproval)),
        usage: await usageToday(config, store, now),
        errors: events
          .filter((event) => event.type === "system" && event.level === "error")
          .reverse()
          .slice(0, 20)
          .map((event) => ({
            chatKey: chatKey(event.chat),
            text: event.type === "system" ? event.message.text : "",
            at: event.createdAt,
          })),
      };
    },
  };
}

/** Today's (UTC) usage: each world's total against its daily limits, then each agent's share. */
async function usageToday(config: Config, store: Store, now: Date): Promise<OperatorUsage[]> {
  const day = utcDay(now);
  const rows = await store.listUsage({ fromDay: day });
  const usage: OperatorUsage[] = [];
  for (const world of config.worlds) {
    const mine = rows.filter((row) => row.world === world.name && row.day === day);
    const limits = [
      world.limits.tokensPerDay === undefined ? undefined : `${world.limits.tokensPerDay} tokens/day`,
      world.limits.costPerDay === undefined ? undefined : `$${world.limits.costPerDay}/day`,
    ].filter((limit) => limit !== undefined);
    usage.push({
      world: world.name,
      day,
      tokens: mine.reduce((sum, row) => sum + row.inputTokens + row.outputTokens, 0),
      costUsd: mine.reduce((sum, row) => sum + row.costUsd, 0),
      ...(limits.length === 0 ? {} : { limit: limits.join(", ") }),
    });
    for (const row of mine) {
      usage.push({
        world: world.name,
        agent: row.agent,
        day,
        tokens: row.inputTokens + row.outputTokens,
        costUsd: row.costUsd,
      });
    }
    usage.push(...(await budgetShares(store, world.name, world.limits, day)));
  }
  return usage;
}

/**
 * Budgets (docs/budgets.md): the world's month, then each person's (chain starter's) and each
 * chat's use today and this month, with the caps that apply in words.
 */
async function budgetShares(
  store: Store,
  world: string,
  limits: Config["worlds"][number]["limits"],
  day: string,
): Promise<OperatorUsage[]> {
  const month = day.slice(0, 7);
  const capText = (caps: Record<string, number | undefined> | undefined, period: "Day" | "Month") =>
    [
      caps?.[`tokensPer${period}`] === undefined
        ? undefined
        : `${caps[`tokensPer${period}`]} tokens/${period.toLowerCase()}`,
      caps?.[`costPer${period}`] === undefined ? undefined : `$${caps[`costPer${period}`]}/${period.toLowerCase()}`,
    ]
      .filter((text) => text !== undefined)
      .join(", ");
  const shares: OperatorUsage[] = [];
  const listed: [
    label: string,
    scope: "world" | "person" | "chat",
    period: string,
    caps: Record<string, number | undefined> | undefined,
  ][] = [
    ["this month", "world", month, { tokensPerMonth: limits.tokensPerMonth, costPerMonth: limits.costPerMonth }],
    ["person", "person", day, limits.perPerson],
    ["person, this month", "person", month, limits.perPerson],
    ["chat", "chat", day, limits.perChat],
    ["chat, this month", "chat", month, limits.perChat],
  ];
  for (const [label, scope, period, caps] of listed) {
    const cap = capText(caps, period === day ? "Day" : "Month");
    for (const bucket of await store.listBuckets({ world, scope, period })) {
      const who = scope === "world" ? label : `${label} ${bucket.subject}`;
      shares.push({
        world,
        agent: cap === "" ? who : `${who} (${cap})`,
        day: period,
        tokens: bucket.tokens,
        costUsd: bucket.costUsd,
      });
    }
  }
  return shares;
}

/** When a person's (or another bot's) message last came in on a platform. */
function lastReceived(events: StoredEvent[], platform: string): Date | undefined {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (event?.type !== "message" || event.chat.platform !== platform) continue;
    if (event.message.author.kind === "human" || event.message.author.kind === "bot") return event.createdAt;
  }
  return undefined;
}

async function recentChats(store: Store, events: StoredEvent[]): Promise<OperatorChat[]> {
  const byChat = new Map<string, { platform: string; messages: OperatorChat["lastMessages"]; latest: number }>();
  for (const event of events) {
    const key = chatKey(event.chat);
    const entry = byChat.get(key) ?? { platform: event.chat.platform, messages: [], latest: 0 };
    entry.latest = Math.max(entry.latest, event.createdAt.getTime());
    if (event.type === "message" || event.type === "system") {
      if (event.message.text.trim() !== "") {
        entry.messages.push({ author: event.message.author.name, text: event.message.text, at: event.createdAt });
      }
    }
    byChat.set(key, entry);
  }
  const newest = [...byChat.entries()].sort((a, b) => b[1].latest - a[1].latest).slice(0, maxChats);
  return Promise.all(
    newest.map(async ([key, entry]) => {
      const chat = parseChatKey(key);
      const world = (await store.getChat(key))?.world;
      return {
        chatKey: key,
        platform: entry.platform,
        ...(world === undefined ? {} : { world }),
        ...(chat.platform === "web" && chat.workspace !== undefined
          ? { webPath: `/chat?world=${encodeURIComponent(chat.workspace)}` }
          : {}),
        lastMessages: entry.messages.slice(-messagesPerChat),
      };
    }),
  );
}
