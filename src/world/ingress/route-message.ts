import type { WorldSettings } from "../world-settings.js";
import type { MessageRecord } from "../records.js";
import { accessChannelFor } from "../access/access-channel.js";
import { parseChatKey } from "../chat-ref.js";
import { chainHumans, chainStarter, startTurn, supersedeParkedTurns, turnIdFor } from "../turn/index.js";
import { settleStoredFiles } from "../files/settle-files.js";
import { budgetNotice, dayBudgetExceeded } from "../limits/day-budget.js";
import { messageRateExceeded, rateNotice } from "../limits/message-rate.js";
import { mayTalk, membersFor } from "../access/membership.js";
import type { Outbox } from "../outbox.js";
import { noticeOnce, periodBucket, postWorldNotice } from "../world-notice.js";
import {
  parseAddresses,
  routeMessage,
  turnLimitNotice,
  turnLimitReached,
  unaddressedNotice,
  unknownAgentNotice,
} from "../routing/index.js";
import { isUserRolesChannel } from "../channel/channel-optional.js";
import { rolesLookup } from "../access/user-roles.js";
import type { WorldContext } from "../world-context.js";
import { messageThroughPolicy } from "../policy/message-policy.js";

/** How often a person who addresses no agent (in a world without a default agent) is told how to. */
const unaddressedNoticeMs = 24 * 3_600_000;

/**
 * The `route` step: decide who answers a stored message and start their turns. Returns the
 * turns whose first steps the caller runs in the same job (no queued step: the job is not done
 * until they ran): those it started (`created`), and on a re-run after a crash every unfinished
 * one it finds. Idempotent: turn ids and notice ids derive from the message id, so a second run
 * starts nothing new.
 */
export async function routeStoredMessage(
  context: WorldContext,
  outbox: Outbox,
  messageId: string,
): Promise<{ turnId: string; created: boolean }[]> {
  const { store, logger, worlds, agents } = context;
  const started: { turnId: string; created: boolean }[] = [];
  const message = await store.getMessage(messageId);
  if (!message) {
    logger.warn({ messageId }, "route: no such message");
    return started;
  }
  const worldName = await store.chatWorld(message.chatKey);
  const world = worldName === undefined ? undefined : worlds.get(worldName);
  if (!world) {
    logger.warn({ messageId, chat: message.chatKey }, "route: chat has no world");
    return started;
  }
  const chat = parseChatKey(message.chatKey);
  const log = logger.child({ platform: chat.platform, chat: message.chatKey, world: world.name });
  if (message.author.kind === "human" && !(await storedSenderMayTalk(context, world, message))) {
    // Ingress answers non-members; this keeps a re-queued route (duplicate delivery, the
    // start-up sweep) from starting their turns.
    log.info({ messageId, user: message.author.id }, "route: sender is not a member; no turn");
    return started;
  }
  if (await pastLimits(context, outbox, world, message)) return started;
  // The policy hooks see it before routing and before any model call (docs/hooks.md).
  const policed = await messageThroughPolicy(context, outbox, world, message);
  if (policed.kind === "responded") return started;
  const text = policed.text;
  // Its files in the workdir before any turn runs, also when a crash cut ingress short.
  await settleStoredFiles(context, outbox, world, message);

  const decision = routeMessage({
    author:
      message.author.kind === "bot"
        ? { kind: "human", name: message.author.name, isBot: true }
        : { kind: message.author.kind, name: message.author.name },
    text,
    ...(policed.addressed === undefined ? {} : { addressed: policed.addressed }),
    agents: world.agents,
    ...(world.defaultAgent === undefined ? {} : { defaultAgent: world.defaultAgent }),
    respond: world.respond,
    allowBots: world.allowBots,
    people: addressesOthers(text, world.agents) ? await peopleInChat(context, message.chatKey) : [],
    ...(await replyTarget(context, message)),
  });
  if (decision.kind === "none") {
    log.debug({ messageId, reason: decision.reason }, "no agent answers");
    if (decision.reason === "not-addressed" && message.author.kind === "human") {
      // Not silence: the person hears how to address the agents, once a day (privately where the channel can).
      const day = periodBucket(message.createdAt, unaddressedNoticeMs);
      const key = `unaddressed:${message.author.id}:${day}`;
      await noticeOnce(context, outbox, chat, message.author.id, key, unaddressedNotice(world.agents));
    }
    return started;
  }
  if (decision.unknown.length > 0 && message.author.kind === "human") {
    const text = unknownAgentNotice(decision.unknown, world.agents);
    await postWorldNotice(context, outbox, { chat, id: `${message.id}:unknown`, text });
  }

  const startedById = await chainStarter(context, message);
  for (const agent of decision.agents) {
    const turnId = turnIdFor(message.id, agent);
    // The turn (routed before a crash?) and the agent's parked turns here: one read.
    const { existing, parked } = await store.routedTurn(message.chatKey, agent, turnId);
    if (existing) {
      // Routed by a run of this job that did not finish (a crash): its first step runs here
      // again, in the job's place in the chat's order, as it did then (a step run again
      // finishes what is left and repeats nothing). Queued instead, it would run after the
      // chat's later messages had started their turns.
      if (existing.state !== "ended") started.push({ turnId, created: false });
      continue;
    }
    if (message.author.kind === "agent" || message.author.kind === "bot") {
      // Messages from agents and other bots do not reset the count: their chains stop at the limit.
      const current = await store.getChat(message.chatKey);
      if (turnLimitReached(current?.agentTurnsSinceHuman ?? 0, world.turnLimit)) {
        const humans = await chainHumans(context, message, { preferHandles: true });
        const text = turnLimitNotice(humans, world.turnLimit);
        await postWorldNotice(context, outbox, { chat, id: `${message.id}:turn-limit`, text });
        log.info({ turnLimit: world.turnLimit }, "turn limit reached; handing back to the humans");
        return started;
      }
    } else if (message.author.kind === "human") {
      await supersedeParkedTurns(context, outbox, world, message, agent, parked);
    }
    const deadlineMs = agents.get(agent)?.limits.deadline ?? 300_000;
    await startTurn(context, message, agent, startedById, deadlineMs);
    started.push({ turnId, created: true });
    log.info({ agent, turnId }, "turn started");
  }
  return started;
}

/**
 * Membership judged again from the stored message. Roles are not stored with it: when the list
 * names roles and the channel cannot look them up, ingress's judgement (made with the roles
 * the platform sent) stands.
 */
async function storedSenderMayTalk(context: WorldContext, world: WorldSettings, message: MessageRecord) {
  const chat = parseChatKey(message.chatKey);
  const adapter = context.channels.main(chat.platform);
  const names = membersFor(world, chat.platform);
  const namesRoles = names.some((entry) => entry === "admins" || entry.startsWith("role:"));
  // Outside chats bound by id roles count for nobody, so there is nothing ingress knew better.
  if (namesRoles && context.worlds.bindsById(chat) && !(adapter && isUserRolesChannel(adapter))) return true;
  const sender = { id: message.author.id, displayName: message.author.name, isBot: false };
  return mayTalk(world, accessChannelFor(context.channels, chat.platform), sender, rolesLookup(context, chat, sender));
}

/**
 * The world's limits, before any turn starts: a person past `messagesPerMinute` (their
 * notice at most once a minute), a world past its day's budget (a notice in the chat at most
 * once an hour). True when the message starts no turn.
 */
async function pastLimits(context: WorldContext, outbox: Outbox, world: WorldSettings, message: MessageRecord) {
  const chat = parseChatKey(message.chatKey);
  const log = context.logger.child({ platform: chat.platform, chat: message.chatKey, world: world.name });
  if (message.author.kind === "human") {
    const rate = await messageRateExceeded(
      context.store,
      world,
      chat.platform,
      message.author.id,
      message.createdAt,
      0,
      message.id,
    );
    if (rate) {
      log.warn({ user: message.author.id, limit: rate.limit }, "message rate limit reached; no turn");
      // A flood is kept as text only: its platform payloads are not stored.
      await context.store.omitMessageRaw(message.id, "rate-limited");
      const minute = periodBucket(message.createdAt, 60_000);
      const text = rateNotice(message.author.name, rate);
      await noticeOnce(context, outbox, chat, message.author.id, `rate:${message.author.id}:${minute}`, text);
      return true;
    }
  }
  const now = context.clock();
  const budget = await dayBudgetExceeded(context.store, world, now);
  if (!budget) return false;
  log.warn({ limit: budget.limit, used: budget.used, allowed: budget.allowed }, "daily budget reached; no turn");
  if (message.author.kind === "human") {
    const hour = periodBucket(now, 3_600_000);
    await noticeOnce(context, outbox, chat, undefined, `budget:${hour}`, budgetNotice(budget, now));
  }
  return true;
}

/**
 * Whether the text addresses a name that is no agent's: only then does routing need the
 * chat's people (reading them is the largest read of a route step).
 */
function addressesOthers(text: string, agents: readonly string[]): boolean {
  const agentNames = new Set(agents.map((agent) => agent.toLowerCase()));
  return parseAddresses(text).some((name) => !agentNames.has(name.replace(/^@/, "").toLowerCase()));
}

/** Names of the humans who have written in the chat (addressing them is not an unknown agent). */
async function peopleInChat(context: WorldContext, chatKey: string): Promise<string[]> {
  const names = new Set<string>();
  for (const message of await context.store.listMessages(chatKey, { latest: 500 })) {
    if (message.author.kind !== "human") continue;
    names.add(message.author.name);
    if (message.author.handle !== undefined) names.add(message.author.handle);
  }
  return [...names];
}

async function replyTarget(context: WorldContext, message: MessageRecord): Promise<{ replyToAgent?: string }> {
  if (message.replyToId === undefined) return {};
  const outbound = await context.store.findOutboundByPlatformId(message.chatKey, message.replyToId);
  if (outbound?.refKind !== "message") return {};
  const replied = await context.store.getMessage(outbound.refId);
  return replied?.author.kind === "agent" ? { replyToAgent: replied.author.name } : {};
}
