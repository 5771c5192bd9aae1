import type { TurnRecord } from "../records.js";
import { deciderCheck, stopTurn, type TurnInterrupts } from "../turn/index.js";
import { chatKey } from "../chat-ref.js";
import type { Outbox } from "../outbox.js";
import type { WorldContext } from "../world-context.js";
import type { ChatCommandAnswer, ChatCommandRequest } from "./chat-command-request.js";

/**
 * `/stop [agent…]`: ends the chat's unfinished turns now (running and parked), or only those of
 * the agents named. A turn is stopped only by someone who may decide its approvals (an approver,
 * or the person whose message started it); the others are left running and said so.
 */
export async function stopCommand(
  context: WorldContext,
  outbox: Outbox,
  interrupts: TurnInterrupts,
  request: ChatCommandRequest,
): Promise<ChatCommandAnswer> {
  const { world, chat, sender } = request;
  const named = request.args.map((word) => word.replace(/^@/, "").toLowerCase());
  const unknown = named.filter((name) => !world.agents.some((agent) => agent.toLowerCase() === name));
  if (unknown.length > 0) {
    return { status: "refused", text: `There is no agent named ${unknown.join(", ")} here; /agents lists them.` };
  }
  const scope = request.wholeChannel ? { chatKeyPrefix: chatKey(chat) } : { chatKey: chatKey(chat) };
  const open = await context.store.listTurns({ ...scope, states: ["running", "parked"] });
  const targeted = named.length === 0 ? open : open.filter((turn) => named.includes(turn.agent.toLowerCase()));
  if (targeted.length === 0) return { status: "done", text: "Nothing to stop: no agent is working in this chat." };

  const mayDecide = deciderCheck(context, world, chat, sender);
  const allowed: TurnRecord[] = [];
  for (const turn of targeted) {
    if (await mayDecide(turn.startedById)) allowed.push(turn);
  }
  const refused = targeted.filter((turn) => !allowed.includes(turn));
  if (allowed.length === 0) {
    return {
      status: "refused",
      text: `Only the person who asked or an approver may stop ${agentList(refused)}.`,
    };
  }
  const by = { id: sender.id, name: sender.displayName };
  const stopped: TurnRecord[] = [];
  for (const turn of allowed) {
    const marked = await stopTurn(context, outbox, interrupts, turn.id, by);
    if (marked) stopped.push(marked);
  }
  if (stopped.length === 0) return { status: "done", text: "Nothing to stop: those turns had just ended." };
  const left = refused.length === 0 ? "" : ` Still working (not yours to stop): ${agentList(refused)}.`;
  return { status: "done", text: `Stopped ${agentList(stopped)} (by ${sender.displayName}).${left}` };
}

function agentList(turns: readonly TurnRecord[]): string {
  const names = [...new Set(turns.map((turn) => turn.agent))];
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
