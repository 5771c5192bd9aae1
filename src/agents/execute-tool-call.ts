import { ToolError, errorMessage } from "../errors/roundtable-error.js";
import { recordToolResult } from "../world/record-tool-result.js";
import { type AgentRuntime, loadTurnScope } from "./agent-runtime.js";
import { continueTurn } from "./continue-turn.js";
import { resolveWorkdir } from "./workdir.js";

/** Default time a tool may take when its source sets none. */
const defaultToolTimeoutMs = 60_000;

/**
 * Run one call whose approval (if any) is settled. A call found `running` was in flight when
 * the process died: it gets `interrupted` and is never run a second time.
 */
export async function executeToolCall(runtime: AgentRuntime, toolCallId: string): Promise<void> {
  const { store, logger } = runtime.world;
  const call = await store.getToolCall(toolCallId);
  if (!call) return;
  const scope = await loadTurnScope(runtime, call.turnId);
  if (!scope) return;
  if (call.state === "done") {
    // Its result is stored (perhaps just before a restart): make sure the turn goes on.
    if (scope.turn.state !== "ended") await continueTurn(runtime, call.turnId, call.step);
    return;
  }
  const log = logger.child({ chat: call.chatKey, agent: call.agent, turn: call.turnId, tool: call.name });
  if (scope.turn.state === "ended") return;
  if (call.state === "running") {
    log.warn({ toolCallId }, "tool was running when the service stopped; not run again");
    await recordToolResult(
      runtime.world,
      runtime.outbox,
      call,
      "interrupted",
      "the service restarted while this tool was running; it was not run again",
    );
    await continueTurn(runtime, call.turnId, call.step);
    return;
  }
  const checked = runtime.tools.check(call.name, call.argumentsJson);
  if (!checked.ok) {
    await recordToolResult(runtime.world, runtime.outbox, call, "invalid", checked.problem);
    await continueTurn(runtime, call.turnId, call.step);
    return;
  }
  await store.setToolCallState(call.id, "running");
  log.info("tool running");
  let kind: "ok" | "error" | "timeout" | "failed";
  let text: string;
  try {
    const outcome = await runtime.tools.call(call.name, checked.args, {
      workdir: await resolveWorkdir(scope.world),
      signal: runtime.stopSignal,
      timeoutMs: defaultToolTimeoutMs,
    });
    kind = outcome.kind;
    text = outcome.text;
  } catch (error) {
    log.error({ err: error }, "tool threw");
    kind = "failed";
    text = errorMessage(error);
  }
  if (runtime.stopSignal.aborted && kind !== "ok") {
    // Stopping mid-run: the call stays `running` and the job fails, so after the restart the
    // job runs again and records `interrupted` (never a second run).
    throw new ToolError("tool.failed", `${call.name} was cut by the service stopping`);
  }
  await recordToolResult(runtime.world, runtime.outbox, call, kind, text);
  await continueTurn(runtime, call.turnId, call.step);
}
