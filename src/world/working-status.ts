import {
  canShowToolProgress,
  canShowWorking,
  type ToolProgress,
  type WorkingActivity,
} from "./channel/channel-optional.js";
import type { ChatRef } from "./chat-ref.js";
import { withIdentity } from "./outbound/outbound-for.js";
import type { WorldContext } from "./world-context.js";

/** A status shown while an agent works; `stop` ends it (idempotent). */
export interface WorkingStatus {
  stop(): void;
}

const nothing: WorkingStatus = { stop: () => undefined };

/**
 * Shows in `chat` that `agent` is working on `activity` until `stop` (docs/architecture.md,
 * "Status while agents work"): through the adapter that posts for the agent (its own bot where
 * it has one), renewed every `workingRenewMs` while it lasts, cleared at the end. Nothing here
 * is awaited by the caller and a failure is logged at debug: the status never delays or fails
 * the turn.
 */
export function showWorking(
  world: Pick<WorldContext, "channels" | "agents" | "logger">,
  chat: ChatRef,
  agent: string,
  activity: WorkingActivity,
): WorkingStatus {
  const author = withIdentity(world, { kind: "agent", id: agent, name: agent });
  const adapter = world.channels.forChat(chat, author);
  if (!adapter || !canShowWorking(adapter)) return nothing;
  const log = world.logger.child({ platform: chat.platform, agent });
  const attempt = (what: string, call: () => Promise<void>) => {
    call().catch((error: unknown) => log.debug({ err: error }, `working status: ${what} failed`));
  };
  attempt("show", () => adapter.showWorking(chat, author, activity));
  const renewMs = adapter.workingRenewMs;
  const timer =
    renewMs === undefined
      ? undefined
      : setInterval(() => attempt("renew", () => adapter.showWorking(chat, author, activity)), renewMs);
  timer?.unref();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      attempt("clear", () => adapter.clearWorking(chat, author));
    },
  };
}

/**
 * Tells the adapter that posts for `agent` where one of its tool calls stands, where it can show
 * that (Slack task chunks). Not awaited; a failure is logged at debug, as for the status.
 */
export function showToolProgress(
  world: Pick<WorldContext, "channels" | "agents" | "logger">,
  chat: ChatRef,
  agent: string,
  progress: ToolProgress,
): void {
  const author = withIdentity(world, { kind: "agent", id: agent, name: agent });
  const adapter = world.channels.forChat(chat, author);
  if (!adapter || !canShowToolProgress(adapter)) return;
  adapter
    .showToolProgress(chat, author, progress)
    .catch((error: unknown) =>
      world.logger.child({ platform: chat.platform, agent }).debug({ err: error }, "tool progress not shown"),
    );
}
