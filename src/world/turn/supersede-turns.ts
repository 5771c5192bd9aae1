import type { MessageRecord, TurnRecord } from "../records.js";
import { parseChatKey } from "../chat-ref.js";
import type { Outbox } from "../outbox.js";
import type { WorldContext } from "../world-context.js";
import type { WorldSettings } from "../world-settings.js";
import { deciderCheck } from "./approval-rights.js";
import { closeTurn } from "./close-turn.js";

/**
 * A new human message to an agent supersedes that agent's turns parked on approvals in the chat
 * that the same person started, or whose every pending approval they may decide (tool loop
 * point 8): `/stop` and `/reset` refuse to close other people's, and so does a plain message.
 * Other people's parked turns stay parked. Each card says who wrote to whom.
 */
export async function supersedeParkedTurns(
  context: WorldContext,
  outbox: Outbox,
  world: WorldSettings,
  message: MessageRecord,
  agent: string,
  /** The agent's parked turns in the chat, when the caller read them already. */
  parked?: TurnRecord[],
): Promise<void> {
  const { store } = context;
  const open = parked ?? (await store.listTurns({ chatKey: message.chatKey, agent, states: ["parked"] }));
  if (open.length === 0) return;
  const chat = parseChatKey(message.chatKey);
  const sender = { id: message.author.id, displayName: message.author.name, isBot: false };
  const mayDecide = deciderCheck(context, world, chat, sender);
  for (const turn of open) {
    if (turn.startedById !== sender.id) {
      const pending = await store.listApprovals({ turnId: turn.id, states: ["pending"] });
      let mayCloseAll = pending.length > 0;
      for (const approval of pending) {
        if (!mayCloseAll) break;
        mayCloseAll = await mayDecide(approval.requestedFor);
      }
      if (!mayCloseAll) continue;
    }
    await closeTurn(context, outbox, turn.id, "superseded", {
      kind: "skipped",
      detail: supersededNote(message.author.name, agent),
      by: { id: sender.id, name: message.author.name },
    });
  }
}

/** Why a superseded card was skipped: `Ana wrote to alice again`. */
function supersededNote(person: string, agent: string): string {
  return `${person} wrote to ${agent} again`;
}
