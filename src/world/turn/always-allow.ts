/**
 * *Always allow* on a card (docs/approvals.md, "Always allow"): offered only where the world has
 * `approvals.allowAlways` on, taken only from a decider listed by id. Who qualifies only as
 * `requester`, `*`, `admins` or `role:` never makes a rule: those entries name whoever happens to
 * ask, or whoever a chat's owner made an admin, and a rule outlives the chat's session.
 */
import { isPersonEntry } from "../access/access-list.js";
import type { AccessChannel } from "../access/access-channel.js";
import type { ApprovalChoice, Sender } from "../inbound.js";
import { cardChoices } from "../inbound.js";
import type { NewStoredRule } from "../policy/stored-rules.js";
import { newShortId } from "../ids.js";
import type { ApprovalRecord, ToolCallRecord } from "../records.js";
import type { WorldSettings } from "../world-settings.js";
import { approversFor } from "./approval-rights.js";

type AlwaysWorld = Pick<WorldSettings, "approvers" | "allowAlways">;

/**
 * Whether a card in a chat of this channel carries *Always allow*: the world has it on and
 * someone can take it (a person listed by id for the platform; on a channel that does not tell
 * people apart, the console, its local user).
 */
export function offersAlwaysAllow(world: AlwaysWorld, channel: AccessChannel): boolean {
  if (world.allowAlways === undefined) return false;
  if (!channel.capabilities.identifiesClickers) return true;
  return approversFor(world, channel.platform).some(isPersonEntry);
}

/** Whether this person may press *Always allow*: listed by id for the platform (or the console's user). */
export function mayAlwaysAllow(world: AlwaysWorld, channel: AccessChannel, user: Sender): boolean {
  if (world.allowAlways === undefined) return false;
  if (!channel.capabilities.identifiesClickers) return true;
  return isPersonEntry(user.id) && approversFor(world, channel.platform).includes(user.id);
}

/** The choices of a call's card. */
export function choicesFor(world: AlwaysWorld, channel: AccessChannel): readonly ApprovalChoice[] {
  return offersAlwaysAllow(world, channel) ? [...cardChoices, "always"] : cardChoices;
}

/** The answer to a press of *Always allow* by someone who may decide but not make a rule. */
export function alwaysRefusedText(world: AlwaysWorld): string {
  return world.allowAlways === undefined
    ? "Always allow is not enabled in this world; nothing was decided."
    : "You are not allowed to always allow this call: only approvers listed by id may; nothing was decided.";
}

/** The rule an *Always allow* press makes, stored with the decision in one transaction. */
export function storedRuleFor(
  world: Pick<WorldSettings, "name" | "allowAlways">,
  approval: ApprovalRecord,
  call: ToolCallRecord,
  argsHash: string,
  author: Sender & { platform: string },
  now: Date,
): NewStoredRule | undefined {
  if (world.allowAlways === undefined) return undefined;
  return {
    id: newShortId(8),
    world: world.name,
    agent: approval.agent,
    tool: call.name,
    argsHash,
    argumentsJson: call.argumentsJson,
    author: { id: author.id, name: author.displayName, platform: author.platform },
    sourceApprovalId: approval.id,
    createdAt: now,
    expiresAt: new Date(now.getTime() + world.allowAlways.forMs),
  };
}
