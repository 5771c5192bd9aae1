import type { Logger } from "../../src/log/logger.js";
import type { ChatRef, ToolProgress } from "../../src/world/channel-adapter.js";
import { type SlackOutbound, slackErrorCode, type TaskChunk } from "./api.js";

// With `stream: native`, each tool call is a task card in the thread: a Slack stream of
// `task_update` chunks (`chat.startStream` / `appendStream` / `stopStream`) that goes running →
// done / failed, or waits for its approval card first. Where the workspace or the method refuses
// chunks, nothing more is tried there: the thread shows what it shows without them (the status
// line and the cards), as before (docs/slack.md, "Task chunks").

/** How each state of a call looks as a task. */
const chunkStatus: Record<ToolProgress["state"], TaskChunk["status"]> = {
  running: "in_progress",
  done: "complete",
  failed: "error",
  waiting: "pending",
};

const details: Partial<Record<ToolProgress["state"], string>> = {
  waiting: "waiting for approval",
  failed: "failed",
};

/** Calls remembered per process (the last ones; a call's states come within minutes). */
const rememberedCalls = 500;

export interface TaskChunksSetup {
  outbound: SlackOutbound;
  logger: Logger;
  /** Who the stream is for (Slack streams to a recipient in channels). */
  recipientOf(chat: ChatRef): { user?: string; team?: string };
}

/** The open task streams of tool calls, by call id, and the workspaces that refuse them. */
export class SlackTaskChunks {
  private readonly streams = new Map<string, { chat: ChatRef & { thread: string }; ts: string }>();
  /** One call's updates in order (a state may come before the previous one's call returned). */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly refusing = new Set<string>();

  constructor(private readonly setup: TaskChunksSetup) {}

  /** Show `progress` of a call in `chat` (a thread); resolves once Slack has it, or it was refused. */
  show(chat: ChatRef & { thread: string }, agentName: string, progress: ToolProgress): Promise<void> {
    const before = this.queues.get(progress.callId) ?? Promise.resolve();
    const next = before.then(() => this.apply(chat, agentName, progress));
    this.queues.set(progress.callId, next);
    void next.finally(() => {
      if (this.queues.get(progress.callId) === next) this.queues.delete(progress.callId);
    });
    return next;
  }

  private async apply(chat: ChatRef & { thread: string }, agentName: string, progress: ToolProgress): Promise<void> {
    const workspace = chat.workspace ?? "";
    if (this.refusing.has(workspace)) return;
    const { outbound } = this.setup;
    const chunk: TaskChunk = {
      type: "task_update",
      id: progress.callId,
      title: `${agentName}: ${progress.tool}`,
      status: chunkStatus[progress.state],
      ...(details[progress.state] === undefined ? {} : { details: details[progress.state] as string }),
    };
    const settled = progress.state === "done" || progress.state === "failed";
    try {
      const open = this.streams.get(progress.callId);
      if (open !== undefined) {
        try {
          if (settled) await outbound.stopStream(open.chat, open.ts, undefined, undefined, [chunk]);
          else await outbound.appendChunks(open.chat, open.ts, [chunk]);
          if (settled) this.streams.delete(progress.callId);
          return;
        } catch (error) {
          // Slack ended the stream meanwhile (a long wait for the approval): a new card follows.
          if (slackErrorCode(error instanceof Error ? error.cause : undefined) !== "message_not_in_streaming_state")
            throw error;
          this.streams.delete(progress.callId);
        }
      }
      const ts = await outbound.startChunkStream(chat, chat.thread, [chunk], this.setup.recipientOf(chat));
      if (settled) await outbound.stopStream(chat, ts);
      else this.remember(progress.callId, { chat, ts });
    } catch (error) {
      const code = slackErrorCode(error instanceof Error ? error.cause : undefined);
      if (code === undefined || code === "ratelimited") {
        this.setup.logger.debug({ err: error, callId: progress.callId }, "slack task chunk not shown");
        return;
      }
      // Slack said no (the method, the chunks or the workspace): not asked again here.
      this.refusing.add(workspace);
      this.setup.logger.warn(
        { err: error, code, workspace },
        "slack refused task chunks; tool calls show without them in this workspace",
      );
    }
  }

  private remember(callId: string, stream: { chat: ChatRef & { thread: string }; ts: string }): void {
    this.streams.set(callId, stream);
    if (this.streams.size > rememberedCalls) {
      const oldest = this.streams.keys().next().value;
      if (oldest !== undefined) this.streams.delete(oldest);
    }
  }
}
