import type { MessageRecord, TurnRecord } from "../records.js";
import type { WorldContext } from "../world-context.js";

/** The platform id of the human whose message started this chain of turns. */
export async function chainStarter(context: Pick<WorldContext, "store">, message: MessageRecord): Promise<string> {
  let current: MessageRecord | undefined = message;
  for (let hops = 0; current && hops < 100; hops++) {
    if (current.author.kind !== "agent") return current.author.id;
    const turn = current.turnId === undefined ? undefined : await context.store.getTurn(current.turnId);
    if (!turn) return "";
    if (turn.startedById !== "") return turn.startedById;
    current = await context.store.getMessage(turn.triggerMessageId);
  }
  return "";
}

export async function chainHumans(
  context: Pick<WorldContext, "store">,
  message: MessageRecord,
  options: { preferHandles?: boolean } = {},
): Promise<string[]> {
  let current: MessageRecord | undefined = message;
  for (let hops = 0; current && hops < 100; hops++) {
    if (current.author.kind === "human") {
      // A platform handle (Telegram @username) in a notice is a real mention: the person is notified.
      return [(options.preferHandles ? current.author.handle : undefined) ?? current.author.name];
    }
    const turn: TurnRecord | undefined =
      current.turnId === undefined ? undefined : await context.store.getTurn(current.turnId);
    current = turn ? await context.store.getMessage(turn.triggerMessageId) : undefined;
  }
  return [];
}

/** The chain starter's name for budget texts: the first human of the chain, else undefined. */
export async function chainStarterName(
  context: Pick<WorldContext, "store">,
  trigger: MessageRecord | undefined,
): Promise<string | undefined> {
  if (!trigger) return undefined;
  if (trigger.author.kind === "human") return trigger.author.name;
  return (await chainHumans(context, trigger))[0];
}
