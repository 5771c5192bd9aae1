import { ToolError, errorMessage } from "../errors/roundtable-error.js";
import { parseChatKey } from "../world/chat-ref.js";
import { editOfCall, finishStoppedTurn, markCallRunning, recordToolResult, stopOf } from "../world/turn/index.js";
import type { ToolProgress } from "../world/channel/channel-optional.js";
import type { ToolCallRecord } from "../world/records.js";
import { showToolProgress, showWorking, type WorkingStatus } from "../world/working-status.js";
import { type AgentRuntime, loadTurnScope } from "./agent-runtime.js";
import { continueTurn } from "./continue-turn.js";
import { resolveWorkdir } from "./workdir.js";
import { postToolFiles } from "./post-tool-files.js";
import { discardCallOutbox, prepareCallOutbox } from "../tools/outbox-files.js";
import type { ToolFile } from "../tools/tool-source.js";
import { linkedSignal } from "./linked-signal.js";
import { withoutSlot } from "../world/queue/step-slots.js";
import type { Logger } from "../log/logger.js";

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
    // What it posted or left in outbox/ before the stop still reaches the chat, once.
    const posted = await postToolFiles(runtime, scope, call, [], await resolveWorkdir(scope.world));
    await recordToolResult(
      runtime.world,
      runtime.outbox,
      call,
      "interrupted",
      `the service restarted while this tool was running; it was not run again${posted === undefined ? "" : `\n${posted}`}`,
    );
    await continueTurn(runtime, call.turnId, call.step);
    return;
  }
  // An approver's edit runs instead of the model's arguments, and the result says so.
  const edit = await editOfCall(runtime.world, call);
  const checked = runtime.tools.check(call.name, edit?.argumentsJson ?? call.argumentsJson);
  if (!checked.ok) {
    await recordToolResult(runtime.world, runtime.outbox, call, "invalid", checked.problem);
    await continueTurn(runtime, call.turnId, call.step);
    return;
  }
  // Watched before the call is marked running: a /stop from then on kills the run.
  const watch = runtime.interrupts.watch(call.turnId);
  // Released with the watch (not AbortSignal.any: see linked-signal.ts).
  const linked = linkedSignal([runtime.stopSignal, watch.signal]);
  let kind: "ok" | "error" | "timeout" | "failed";
  let text: string;
  let files: ToolFile[] = [];
  let workdir: string | undefined;
  let working: WorkingStatus | undefined;
  try {
    // Stopped since the turn was read: the stop closes this call; it never runs.
    if ((await store.getTurn(call.turnId))?.stoppedBy) return;
    await markCallRunning(runtime.world, call);
    log.info("tool running");
    working = showWorking(runtime.world, parseChatKey(call.chatKey), call.agent, { kind: "tool", tool: call.name });
    showToolProgress(runtime.world, parseChatKey(call.chatKey), call.agent, progressOf(call, "running"));
    const callWorkdir = await resolveWorkdir(scope.world);
    workdir = callWorkdir;
    const outbox = await callOutbox(callWorkdir, call.id, log);
    // A tool's process (or MCP server) is waited for without the step's slot (src/world/queue/step-slots.ts).
    const outcome = await withoutSlot(() =>
      runtime.tools.call(call.name, checked.args, {
        workdir: callWorkdir,
        signal: linked.signal,
        timeoutMs: defaultToolTimeoutMs,
        ...(outbox === undefined ? {} : { outbox }),
      }),
    );
    kind = outcome.kind;
    text = outcome.text;
    if ((outcome.kind === "ok" || outcome.kind === "error") && outcome.files) files = outcome.files;
  } catch (error) {
    log.error({ err: error }, "tool threw");
    kind = "failed";
    text = errorMessage(error);
  } finally {
    working?.stop();
    linked.release();
    watch.release();
  }
  const stop = stopOf(watch.signal);
  if (stop) {
    // The stop gave the call `interrupted` already; this keeps the closure if it could not.
    log.info("tool run stopped");
    // A stopped call's files are nobody's: taken here, so no later call finds them.
    if (workdir !== undefined) await discardCallOutbox(workdir, call.id, log);
    await recordToolResult(runtime.world, runtime.outbox, call, "interrupted", `stopped by ${stop.by.name}`);
    // A stop stored by another process is ended here, by the process that was running the tool.
    const turn = await store.getTurn(call.turnId);
    if (turn) await finishStoppedTurn(runtime.world, runtime.outbox, turn);
    return;
  }
  if (runtime.stopSignal.aborted && kind !== "ok") {
    // Stopping mid-run: the call stays `running` and the job fails, so after the restart the
    // job runs again and records `interrupted` (never a second run).
    throw new ToolError("tool.failed", `${call.name} was cut by the service stopping`);
  }
  showToolProgress(
    runtime.world,
    parseChatKey(call.chatKey),
    call.agent,
    progressOf(call, kind === "ok" ? "done" : "failed"),
  );
  if (workdir !== undefined) {
    // Its files (in the result, left in outbox/) go to the chat before the result is stored.
    const posted = await postToolFiles(runtime, scope, call, files, workdir);
    if (posted !== undefined) text = `${text}\n${posted}`;
  }
  await recordToolResult(
    runtime.world,
    runtime.outbox,
    call,
    kind,
    text,
    edit === undefined ? {} : { note: edit.note },
  );
  await continueTurn(runtime, call.turnId, call.step);
}

function progressOf(call: ToolCallRecord, state: ToolProgress["state"]): ToolProgress {
  return { callId: call.id, tool: call.name, state };
}

/** The call's own outbox, made before it runs; without one (the workdir refused it) the call runs all the same. */
async function callOutbox(workdir: string, callId: string, log: Logger): Promise<string | undefined> {
  try {
    return await prepareCallOutbox(workdir, callId, log);
  } catch (error) {
    log.warn({ err: error }, "the call's outbox could not be made; files it leaves are not posted");
    return undefined;
  }
}
