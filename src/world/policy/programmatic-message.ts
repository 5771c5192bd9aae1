/**
 * A hook's `respond` (docs/hooks.md): the programmatic message, stored under an id derived from
 * the event it answers and posted as its sender (an agent of the world, or the world itself),
 * then routed like any message (so it is an event of its own, and counted against `turnLimit`).
 */
import type { Outbox } from "../outbox.js";
import type { MessageRecord } from "../records.js";
import { chatJob } from "../jobs.js";
import { type Author, worldAuthor } from "../message.js";
import { parseChatKey } from "../chat-ref.js";
import { countPolicyAnswer } from "../turn/index.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";
import type { RespondMessage } from "./hook-events.js";

export interface ProgrammaticMessage {
  chatKey: string;
  /** Fixed by the event it answers: a step run again never posts it twice. */
  id: string;
  respond: RespondMessage;
  /** The event's agent, when it has one (else the world's default agent, else the world). */
  agent?: string;
  /** The turn it ends (a tool call's respond, counted already as that turn). */
  turnId?: string;
}

/** Who a programmatic message is posted as. */
export function programmaticAuthor(
  context: Pick<WorldContext, "logger">,
  world: WorldSettings,
  message: Pick<ProgrammaticMessage, "respond" | "agent">,
): Author {
  const asked = message.respond.sender;
  const agentNamed = (name: string | undefined) =>
    name === undefined ? undefined : world.agents.find((agent) => agent.toLowerCase() === name.toLowerCase());
  if (asked === "system") return worldAuthor;
  const sender = agentNamed(asked) ?? agentNamed(message.agent) ?? agentNamed(world.defaultAgent);
  if (asked !== undefined && agentNamed(asked) === undefined)
    context.logger.warn({ world: world.name, sender: asked }, "policy hook's respond names no agent of the world");
  return sender === undefined ? worldAuthor : { kind: "agent", id: sender, name: sender };
}

/**
 * Store the message (once), show it and queue its routing. Returns the stored message. The
 * chat's agent-turn count goes up with it, so programmatic messages answering each other stop
 * at the world's `turnLimit` like agents' answers do.
 */
export async function postProgrammaticMessage(
  context: WorldContext,
  outbox: Outbox,
  world: WorldSettings,
  message: ProgrammaticMessage,
): Promise<MessageRecord> {
  const { store } = context;
  const chat = parseChatKey(message.chatKey);
  const existing = await store.getMessage(message.id);
  let stored = existing;
  if (!stored) {
    stored = await store.addMessage({
      id: message.id,
      chatKey: message.chatKey,
      author: programmaticAuthor(context, world, message),
      text: message.respond.text,
      ...(message.turnId === undefined ? {} : { turnId: message.turnId }),
    });
    if (message.turnId === undefined) await countPolicyAnswer(context, message.chatKey);
  }
  // Shown again after a crash is harmless: delivery is idempotent by message id.
  if (stored.author.kind === "system")
    await outbox.publish(message.chatKey, { type: "system", chat, level: "notice", message: stored });
  else
    await outbox.publish(message.chatKey, {
      type: "message",
      chat,
      message: stored,
      ...(existing ? { rerun: true as const } : {}),
    });
  await context.queue.add(chatJob(message.chatKey, { kind: "route", messageId: stored.id }));
  return stored;
}
