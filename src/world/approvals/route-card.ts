/**
 * Where a new approval's card goes (docs/approvals.md, "Where approval cards go"): its chat
 * (the default), the DMs of the approvers listed by id (`route: dm | both`), and the world's
 * approvals chat (`channel`), on any running platform. Every place is recorded before any card
 * is posted, so a press on a copy always finds its approval.
 */
import type { ApprovalCard, ApprovalOutcome } from "../approval-types.js";
import { everyoneEntry, requesterEntry } from "../access/access-list.js";
import { canOpenDirectChat, isChatResolvingChannel } from "../channel/channel-optional.js";
import { type ChatRef, chatKey, type Platform, parseChatKey, platforms } from "../chat-ref.js";
import type { StoredEvent, WorldEvent } from "../events.js";
import type { ApprovalRecord } from "../records.js";
import type { WorldContext } from "../world-context.js";
import { postWorldNotice } from "../world-notice.js";
import type { CardRouting, WorldSettings } from "../world-settings.js";
import type { CardCopyRecord, NewCardCopy } from "./card-copies.js";

/** What routing publishes through (the outbox): stored, then delivered. */
export interface CardPublisher {
  publish(chatKey: string, event: Exclude<WorldEvent, { type: "stream" }>): Promise<StoredEvent>;
}

type RoutedWorld = Pick<WorldSettings, "name" | "approvers" | "cardRouting">;
type RoutingContext = Pick<WorldContext, "store" | "channels" | "logger">;

/**
 * Publish a new card: in its chat, or (with `cardRouting`) in every place the routing names,
 * recorded first. Run again (a step resumed after a restart) it publishes the recorded places
 * again, and their delivery posts only what is not posted yet.
 */
export async function publishApprovalCard(
  context: RoutingContext,
  publisher: CardPublisher,
  world: RoutedWorld,
  approval: ApprovalRecord,
  cardFor: (chat: ChatRef) => ApprovalCard,
  tool: string,
): Promise<void> {
  const origin = parseChatKey(approval.chatKey);
  const routing = world.cardRouting;
  if (!routing) {
    await publisher.publish(approval.chatKey, { type: "approval-requested", chat: origin, card: cardFor(origin) });
    return;
  }
  const { store } = context;
  let copies = await store.listCardCopies(approval.id);
  if (copies.length === 0) {
    await store.addCardCopies(await placesFor(context, world, routing, approval));
    copies = await store.listCardCopies(approval.id);
  }
  const originCard = cardFor(origin);
  const primary = primaryCopy(copies);
  for (const copy of copies) {
    if (copy.kind === "chat") {
      await publisher.publish(approval.chatKey, { type: "approval-requested", chat: origin, card: originCard });
      continue;
    }
    if (copy.state !== "open") continue;
    const chat = parseChatKey(copy.chatKey);
    const fallback = routing.route === "dm" ? { fallback: originCard } : {};
    await publisher.publish(copy.chatKey, {
      type: "approval-requested",
      chat,
      card: cardFor(chat),
      copy: { kind: copy.kind, ...fallback, ...(copy === primary ? { primary: true as const } : {}) },
    });
  }
  if (routing.route === "dm" && !copies.some((copy) => copy.kind === "chat")) {
    await postWorldNotice(context, publisher, {
      chat: origin,
      id: `asked-privately:${approval.id}`,
      text: `${approval.agent} waits for approval of ${tool} (asked privately)`,
    });
  }
}

/**
 * Draw a pending card again (a quorum's progress) wherever it is shown: its chat, or (with
 * routing) every recorded place whose copy is open, each drawn for its own platform.
 */
export async function publishCardRedraws(
  context: Pick<WorldContext, "store" | "worlds">,
  publisher: { publish(chatKey: string, event: Exclude<WorldEvent, { type: "stream" }>): Promise<unknown> },
  approval: ApprovalRecord,
  cardFor: (chat: ChatRef) => ApprovalCard,
): Promise<void> {
  const origin = parseChatKey(approval.chatKey);
  const routed = context.worlds.get(approval.world)?.cardRouting !== undefined;
  const copies = routed ? await context.store.listCardCopies(approval.id) : [];
  // No copies: not routed, or asked before routing was configured (its card is in its chat).
  if (copies.length === 0) {
    await publisher.publish(approval.chatKey, { type: "approval-updated", chat: origin, card: cardFor(origin) });
    return;
  }
  for (const copy of copies) {
    if (copy.kind === "chat") {
      await publisher.publish(approval.chatKey, { type: "approval-updated", chat: origin, card: cardFor(origin) });
    } else if (copy.state === "open") {
      const chat = parseChatKey(copy.chatKey);
      await publisher.publish(copy.chatKey, {
        type: "approval-updated",
        chat,
        card: cardFor(chat),
        copy: { kind: copy.kind },
      });
    }
  }
}

/**
 * The places of a card: the chat (`chat`, `both`), each listed approver's DM (`dm`, `both`; a
 * DM that cannot be opened is skipped with a log line), the approvals chat. With `dm` and
 * nobody reachable, the chat.
 */
async function placesFor(
  context: RoutingContext,
  world: RoutedWorld,
  routing: CardRouting,
  approval: ApprovalRecord,
): Promise<NewCardCopy[]> {
  const { channels, logger } = context;
  const log = logger.child({ chat: approval.chatKey, approvalId: approval.id, world: world.name });
  const places = new Map<string, NewCardCopy>();
  const add = (chat: ChatRef, place: Omit<NewCardCopy, "approvalId" | "chatKey">) => {
    const key = chatKey(chat);
    // A DM or approvals chat that is the card's own chat is the chat.
    const kind = key === approval.chatKey ? "chat" : place.kind;
    if (!places.has(key)) places.set(key, { ...place, kind, approvalId: approval.id, chatKey: key });
  };
  if (routing.route !== "dm") add(parseChatKey(approval.chatKey), { kind: "chat" });
  if (routing.route !== "chat") {
    for (const { platform, personId } of listedPeople(world)) {
      const adapter = channels.main(platform);
      if (!adapter || !canOpenDirectChat(adapter)) {
        log.warn({ platform, person: personId }, "approver skipped: no running channel of theirs opens DMs");
        continue;
      }
      try {
        add(await adapter.openDirectChat(personId), { kind: "dm", personId });
      } catch (error) {
        log.warn({ err: error, platform, person: personId }, "approver skipped: their DM could not be opened");
      }
    }
  }
  if (routing.channel) {
    const adapter = channels.main(routing.channel.platform);
    if (adapter) {
      const named: ChatRef = { platform: routing.channel.platform, channel: routing.channel.id };
      add(isChatResolvingChannel(adapter) ? adapter.resolveChat(named) : named, { kind: "channel" });
    } else {
      log.warn({ platform: routing.channel.platform }, "approvals channel skipped: its platform is not running");
    }
  }
  if (places.size === 0) {
    log.warn("no approver could be reached privately; the card falls back to the chat");
    add(parseChatKey(approval.chatKey), { kind: "chat" });
  }
  return [...places.values()];
}

/** The approvers a DM can go to: those listed by id (not `requester`, `*`, `admins` or a role). */
export function listedPeople(world: Pick<WorldSettings, "approvers">): { platform: Platform; personId: string }[] {
  const people: { platform: Platform; personId: string }[] = [];
  for (const platform of platforms) {
    for (const entry of world.approvers[platform] ?? []) {
      const named = entry !== requesterEntry && entry !== everyoneEntry && entry !== "admins";
      if (named && !entry.startsWith("role:")) people.push({ platform, personId: entry });
    }
  }
  return people;
}

/** Where a decision was made, as the card of every copy names it ("approved by Ana in a direct message"). */
export function placePhrase(copy: CardCopyRecord, origin: Platform): string {
  const platform = parseChatKey(copy.chatKey).platform;
  switch (copy.kind) {
    case "chat":
      return "in the chat";
    case "dm":
      return "in a direct message";
    case "channel":
      return platform === origin
        ? "in the approvals channel"
        : `in the approvals channel on ${platformNames[platform]}`;
  }
}

const platformNames: Record<Platform, string> = {
  slack: "Slack",
  telegram: "Telegram",
  discord: "Discord",
  console: "the console",
  web: "the web console",
};

/** One place a closed approval's outcome is shown: its chat, or a copy (`copy` set). */
export interface OutcomePlace {
  chatKey: string;
  chat: ChatRef;
  outcome: ApprovalOutcome;
  copy?: { kind: "dm" | "channel"; primary?: true };
}

/**
 * Where a closed approval's outcome goes: its chat, and (with routing) every recorded place,
 * each naming where the decision was made. The caller (`publishApprovalOutcome`) publishes them.
 */
export async function outcomePlaces(
  context: Pick<WorldContext, "store" | "worlds">,
  approval: ApprovalRecord,
  outcome: ApprovalOutcome,
): Promise<OutcomePlace[]> {
  const origin = parseChatKey(approval.chatKey);
  const routed = context.worlds.get(approval.world)?.cardRouting !== undefined;
  const copies = routed ? await context.store.listCardCopies(approval.id) : [];
  // No copies: not routed, or asked before routing was configured (its card is in its chat).
  if (copies.length === 0) return [{ chatKey: approval.chatKey, chat: origin, outcome }];
  const decidedIn = copies.find((copy) => copy.decidedHere);
  const named =
    decidedIn && outcome.decidedBy
      ? { ...outcome, decidedBy: { ...outcome.decidedBy, where: placePhrase(decidedIn, origin.platform) } }
      : outcome;
  const primary = primaryCopy(copies);
  return copies.flatMap((copy): OutcomePlace[] => {
    if (copy.kind === "chat") return [{ chatKey: approval.chatKey, chat: origin, outcome: named }];
    if (copy.state !== "open") return [];
    const marks = copy === primary ? { primary: true as const } : {};
    return [
      { chatKey: copy.chatKey, chat: parseChatKey(copy.chatKey), outcome: named, copy: { kind: copy.kind, ...marks } },
    ];
  });
}

/** The copy whose events stand for the approval when its chat has no card: the first open one. */
function primaryCopy(copies: readonly CardCopyRecord[]): CardCopyRecord | undefined {
  if (copies.some((copy) => copy.kind === "chat")) return undefined;
  return copies.find((copy) => copy.state === "open");
}
