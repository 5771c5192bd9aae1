import { secretRedactor } from "../../log/redact-secrets.js";
import { isRuleActive, type StoredRuleRecord } from "../policy/stored-rules.js";
import { deciderCheck } from "../turn/index.js";
import type { WorldContext } from "../world-context.js";
import type { ChatCommandAnswer, ChatCommandRequest } from "./chat-command-request.js";

/** Longest arguments text per line of `/rules`. */
const shortArgumentsLength = 80;

/** Key shapes (`sk-…`, `ghp_…`, `xox…`, `AIza…`, `Bearer …`) are redacted as in the logs. */
const redact = secretRedactor([]);

/**
 * `/rules`: the world's stored *Always allow* rules that still match (id, agent, tool, arguments,
 * who made it, when it expires, its uses). `/rules revoke <id>`: an approver of the world on this
 * platform ends one (docs/approvals.md, "Always allow").
 */
export async function rulesCommand(
  context: Pick<WorldContext, "store" | "channels" | "worlds" | "clock" | "logger">,
  request: ChatCommandRequest,
): Promise<ChatCommandAnswer> {
  const [verb, id, ...rest] = request.args;
  if (verb === undefined) return { status: "done", text: await rulesText(context, request) };
  if (verb !== "revoke" || id === undefined || rest.length > 0)
    return { status: "refused", text: "Usage: /rules, or /rules revoke <id>." };
  const mayRevoke = deciderCheck(context, request.world, request.chat, request.sender);
  // As nobody's requester: only the world's approvers of this platform (ids, roles, admins, `*`).
  if (!(await mayRevoke(undefined)))
    return { status: "refused", text: "Only this world's approvers may revoke a rule." };
  const found = await context.store.getStoredRule(id);
  if (!found || found.world !== request.world.name)
    return { status: "refused", text: `There is no rule ${id} in this world; /rules lists them.` };
  const result = await context.store.revokeStoredRule(id, request.sender.displayName, context.clock());
  if (!result) return { status: "refused", text: `There is no rule ${id} in this world; /rules lists them.` };
  if (!result.revoked)
    return { status: "done", text: `Rule ${id} was already revoked by ${result.rule.revokedBy ?? "someone"}.` };
  context.logger.info({ rule: id, world: request.world.name, by: request.sender.id }, "stored rule revoked");
  return {
    status: "done",
    text: `Rule ${id} revoked by ${request.sender.displayName}: ${result.rule.agent}'s ${result.rule.tool} with these arguments asks again.`,
  };
}

async function rulesText(context: Pick<WorldContext, "store" | "clock">, request: ChatCommandRequest): Promise<string> {
  const now = context.clock();
  const all = await context.store.listStoredRules({ world: request.world.name });
  const active = all.filter((rule) => isRuleActive(rule, now));
  const off =
    request.world.allowAlways === undefined
      ? ["Always allow is off in this world (approvals.allowAlways): stored rules do not match."]
      : [];
  const ended = all.length - active.length;
  const endedLine = ended > 0 ? [`${ended} revoked or expired not shown (roundtable rules lists every rule).`] : [];
  if (active.length === 0) return ["No stored rules match in this world.", ...off, ...endedLine].join("\n");
  const lines = active.map((rule, index) => ruleLine(rule, index));
  return [
    `Stored rules of world ${request.world.name} (${active.length}, oldest first):`,
    ...lines,
    ...off,
    ...endedLine,
    "Revoke one with /rules revoke <id>.",
  ].join("\n");
}

function ruleLine(rule: StoredRuleRecord, index: number): string {
  const uses =
    rule.useCount === 0
      ? "not used yet"
      : `used ${rule.useCount} time${rule.useCount === 1 ? "" : "s"}, last ${utcMinute(rule.lastUsedAt ?? rule.createdAt)}`;
  return [
    `${index + 1}. ${rule.id}`,
    `${rule.agent} · ${rule.tool} \`${shortArguments(rule.argumentsJson)}\``,
    `by ${rule.author.name} (${rule.author.platform})`,
    `expires ${utcMinute(rule.expiresAt)}`,
    uses,
  ].join(" · ");
}

function shortArguments(argumentsJson: string): string {
  let compact = argumentsJson;
  try {
    compact = JSON.stringify(JSON.parse(argumentsJson));
  } catch {
    // Shown as stored.
  }
  compact = redact(compact).replace(/\s+/g, " ");
  return compact.length <= shortArgumentsLength ? compact : `${compact.slice(0, shortArgumentsLength - 1)}…`;
}

function utcMinute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
