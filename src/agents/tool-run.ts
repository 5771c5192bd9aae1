import { ToolError, errorMessage } from "../errors/roundtable-error.js";
import { parseChatKey } from "../world/chat-ref.js";
import type { ToolProgress } from "../world/channel/channel-optional.js";
import type { ToolCallRecord, TurnRecord } from "../world/records.js";
import type { ToolRunInput, ToolRunOutcome } from "../world/world-context.js";
import type { WorldSettings } from "../world/world-settings.js";
import { showToolProgress, showWorking, type WorkingStatus } from "../world/working-status.js";
import { type AgentRuntime, scopeOf } from "./agent-runtime.js";
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
 * Run one call (its loop marked it running): the tool with its checked arguments, its
 * progress shown, its files posted. Returns the result for the loop to record, or `stopped`
 * when `/stop` cut the run (its files are dropped). Throws when the service stopping cut it:
 * the call stays `running`, and after the restart its loop records `interrupted`.
 */
export async function runToolCall(runtime: AgentRuntime, input: ToolRunInput): Promise<ToolRunOutcome> {
  const { call, args } = input;
  const scope = scopeOf(runtime, input.turn, input.world);
  const log = runtime.world.logger.child({ chat: call.chatKey, agent: call.agent, turn: call.turnId, tool: call.name });
  // Released when the run is over (not AbortSignal.any: see linked-signal.ts).
  const linked = linkedSignal([runtime.stopSignal, input.stopped]);
  let kind: "ok" | "error" | "timeout" | "failed";
  let text: string;
  let files: ToolFile[] = [];
  let workdir: string | undefined;
  let working: WorkingStatus | undefined;
  try {
    log.info("tool running");
    working = showWorking(runtime.world, parseChatKey(call.chatKey), call.agent, { kind: "tool", tool: call.name });
    showToolProgress(runtime.world, parseChatKey(call.chatKey), call.agent, progressOf(call, "running"));
    const callWorkdir = await resolveWorkdir(scope.world);
    workdir = callWorkdir;
    const outbox = await callOutbox(callWorkdir, call.id, log);
    // A tool's process (or MCP server) is waited for without the step's slot (src/world/step-slots.ts).
    const outcome = await withoutSlot(() =>
      runtime.tools.call(call.name, args, {
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
  }
  const stop = input.stopOf();
  if (stop) {
    log.info("tool run stopped");
    // A stopped call's files are nobody's: taken here, so no later call finds them.
    if (workdir !== undefined) await discardCallOutbox(workdir, call.id, log);
    return { kind: "stopped", stop };
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
  return { kind, text };
}

/** What a call that was running when the service stopped posted or left in outbox/: it still reaches the chat, once. */
export async function postLeftFiles(
  runtime: AgentRuntime,
  call: ToolCallRecord,
  turn: TurnRecord,
  world: WorldSettings,
): Promise<string | undefined> {
  return postToolFiles(runtime, scopeOf(runtime, turn, world), call, [], await resolveWorkdir(world));
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
