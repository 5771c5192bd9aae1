/**
 * The `message` event (docs/hooks.md): a stored message that would be routed goes through the
 * world's policy modules before routing and before any model call. Persist → onEvent → act: the
 * outcome is stored (with a changed text, in the same transaction) before routing reads it, and
 * a route step run again after a crash acts on the stored outcome without asking again.
 */
import type { Outbox } from "../outbox.js";
import type { MessageRecord } from "../records.js";
import { parseChatKey } from "../chat-ref.js";
import { parseAddresses, turnLimitNotice, turnLimitReached } from "../routing/index.js";
import { chainHumans } from "../turn/index.js";
import { postWorldNotice } from "../world-notice.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";
import type { HookChat, HookMessage, HookOutcomeRecord, HookScope, MessageEvent } from "./event-policy.js";
import type { Store } from "../store.js";
import { postProgrammaticMessage } from "./programmatic-message.js";

/** What routing does with the message: route it (as the policy left it), or nothing (responded). */
export type MessageRouting = { kind: "route"; text: string; addressed?: string[] } | { kind: "responded" };

/** Run the message through the policy (or its stored outcome) and act on a `respond`. */
export async function messageThroughPolicy(
  context: WorldContext,
  outbox: Outbox,
  world: WorldSettings,
  message: MessageRecord,
): Promise<MessageRouting> {
  const { policy, store } = context;
  if (!policy?.appliesTo(world.name)) return { kind: "route", text: message.text };
  const key = `message:${message.id}`;
  let stored = await store.getHookOutcome(key);
  if (!stored) {
    const event = await messageEvent(store, world.name, message);
    const decision = await policy.decide(event, hookScope(store, world.name, message.chatKey));
    const text =
      decision.outcome === "replaced" && decision.event.type === "message" ? decision.event.message.text : undefined;
    stored = await store.recordHookOutcome(
      { key, chatKey: message.chatKey, kind: "message", outcome: decision.outcome, event, decision },
      text === undefined || text === message.text ? {} : { messageText: { id: message.id, text } },
    );
  }
  return act(context, outbox, world, message, stored);
}

async function act(
  context: WorldContext,
  outbox: Outbox,
  world: WorldSettings,
  message: MessageRecord,
  stored: HookOutcomeRecord,
): Promise<MessageRouting> {
  const decision = stored.decision;
  switch (decision.outcome) {
    case "kept":
    case "failed":
      return { kind: "route", text: message.text };
    case "replaced": {
      if (decision.event.type !== "message" || stored.event.type !== "message")
        return { kind: "route", text: message.text };
      const { text, addressed } = decision.event.message;
      const same = JSON.stringify(addressed) === JSON.stringify(stored.event.message.addressed);
      return same ? { kind: "route", text } : { kind: "route", text, addressed };
    }
    case "responded": {
      const chat = parseChatKey(message.chatKey);
      if (message.author.kind !== "human") {
        // A programmatic answer to an agent (or to another programmatic message) is an agent turn.
        const current = await context.store.getChat(message.chatKey);
        if (turnLimitReached(current?.agentTurnsSinceHuman ?? 0, world.turnLimit)) {
          const humans = await chainHumans(context, message, { preferHandles: true });
          const text = turnLimitNotice(humans, world.turnLimit);
          await postWorldNotice(context, outbox, { chat, id: `${message.id}:turn-limit`, text });
          return { kind: "responded" };
        }
      }
      await postProgrammaticMessage(context, outbox, world, {
        chatKey: message.chatKey,
        id: `${message.id}:policy`,
        respond: decision.message,
        ...(message.author.kind === "agent" ? { agent: message.author.name } : {}),
      });
      return { kind: "responded" };
    }
  }
}

/** The event of a stored message (also what `roundtable replay` feeds). */
export async function messageEvent(
  store: Pick<Store, "messageFiles">,
  world: string,
  message: MessageRecord,
): Promise<MessageEvent> {
  const kind = message.author.kind;
  return {
    type: "message",
    createdBy: kind === "agent" ? "agent" : kind === "system" ? "system" : "user",
    world,
    chat: hookChat(message.chatKey),
    message: await hookMessage(store, message),
  };
}

/** A chat as hooks see it. */
export function hookChat(chatKey: string): HookChat {
  const chat = parseChatKey(chatKey);
  return { platform: chat.platform, id: chat.channel, ...(chat.thread === undefined ? {} : { thread: chat.thread }) };
}

/** A stored message as hooks see it. */
export async function hookMessage(store: Pick<Store, "messageFiles">, message: MessageRecord): Promise<HookMessage> {
  const files = (message.fileCount ?? 0) > 0 ? await store.messageFiles(message.id) : [];
  return {
    id: message.id,
    senderName: message.author.name,
    ...(message.author.kind === "system" ? {} : { senderId: message.author.id }),
    text: message.text,
    files: files.map((file) => ({ name: file.name, mediaType: file.mediaType, bytes: file.size })),
    addressed: parseAddresses(message.text),
  };
}

/** What a hook's `context` reaches for an event in this chat (`history` reads the store). */
export function hookScope(
  store: Pick<Store, "listMessages" | "messageFiles">,
  world: string,
  chatKey: string,
  agent?: string,
): HookScope {
  return {
    world,
    chatKey,
    ...(agent === undefined ? {} : { agent }),
    history: async (n) => {
      const count = Math.max(0, Math.min(500, Math.floor(Number(n) || 0)));
      if (count === 0) return [];
      const messages = await store.listMessages(chatKey, { latest: count });
      return Promise.all(messages.map((message) => hookMessage(store, message)));
    },
  };
}
