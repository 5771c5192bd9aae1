import type { AgentRuntime, ProviderEntry, ViewFitter } from "../agents/agent-runtime.js";
import { AgentTurnRunner } from "../agents/agent-turn-runner.js";
import { traceTurnRunner } from "../telemetry/traced-turn-runner.js";
import type { AgentPolicy, AgentTools } from "../agents/agent-tools.js";
import { type AgentConfig, type Config, filesConfigSchema } from "../config/schema.js";
import { InboundFileFetcher } from "./inbound-file-fetcher.js";
import { transcriberFrom, withTranscription } from "./transcribing-files.js";
import type { InboundFiles } from "../world/files/inbound-files.js";
import type { Logger } from "../log/logger.js";
import type { Store } from "../world/store.js";
import type { EventPolicy } from "../world/policy/event-policy.js";
import type { ChannelAdapter } from "../world/channel-adapter.js";
import { ChannelRegistry } from "../world/channel/channel-registry.js";
import type { WorkQueue } from "../world/work-queue.js";
import { StepSlots } from "../world/queue/step-slots.js";
import { createWorldDirectory } from "../world/ingress/world-directory.js";
import { WorldEngine } from "../world/world-engine.js";
import { agentSettingsFrom, chatBindingsFrom, worldSettingsFrom } from "./world-settings-from-config.js";
import { Scheduler } from "../world/autonomous/scheduler.js";
import { isChatResolvingChannel, type WebhookRoute } from "../world/channel-adapter.js";
import type { ChatRef } from "../world/chat-ref.js";
import {
  maxTriggerBodyBytes,
  maxTriggerBytesInFlightPerClient,
  triggerBodyTimeoutMs,
  triggerRoutes,
} from "../http/trigger-routes.js";
import { UploadAllowance } from "../../channels/web/upload-allowance.js";
import { checkEditedArguments } from "../agents/check-edited-arguments.js";
import { schedulesFrom, triggersFrom } from "./autonomous-from-config.js";

/** Everything a running Roundtable is made of. Tests pass fakes for providers; nothing else differs. */
export interface RoundtableParts {
  config: Config;
  store: Store;
  queue: WorkQueue;
  logger: Logger;
  channels: ChannelAdapter[];
  providers: ReadonlyMap<string, ProviderEntry>;
  tools: AgentTools;
  policy: AgentPolicy;
  fitView: ViewFitter;
  modelLimits: (agent: AgentConfig) => { budgetTokens: number; reserveOutputTokens: number };
  describeProviderError: (error: unknown) => string;
  clock?: () => Date;
  /** How long a refused delivery holds its chat's later ones before it is given up (default 30 s). */
  deliveryHoldMs?: number;
  /** How long running steps may take to finish on stop before they are cut (default 10 s). */
  stopGraceMs?: number;
  /** How often the scheduler looks at due times (default 1 s). */
  scheduleTickMs?: number;
  /** The policy modules (`hooks`, docs/hooks.md); absent when none is configured. */
  eventPolicy?: EventPolicy;
  /** Closed on stop (MCP connections). */
  closeables?: { close(): Promise<void> }[];
}

/** The world engine, the tool loop and the channels, wired. */
export class Roundtable {
  readonly engine: WorldEngine;
  /** Runs `schedules` (a test's `tick()` runs what its clock says is due). */
  readonly scheduler: Scheduler;
  private readonly stopController = new AbortController();
  private started = false;
  /** Trigger bodies in flight per client (a signature is checked only once a body is in). */
  private readonly triggerBodies = new UploadAllowance(
    maxTriggerBodyBytes,
    maxTriggerBytesInFlightPerClient,
    triggerBodyTimeoutMs,
  );

  constructor(private readonly parts: RoundtableParts) {
    const channels = new ChannelRegistry(parts.channels);
    this.engine = new WorldEngine({
      store: parts.store,
      queue: parts.queue,
      logger: parts.logger,
      worlds: createWorldDirectory(
        parts.config.worlds.map(worldSettingsFrom),
        chatBindingsFrom(parts.config.channels),
        new Set(
          parts.channels
            .filter((adapter) => adapter.capabilities.chatsNameTheirWorld)
            .map((adapter) => adapter.platform),
        ),
      ),
      channels,
      agents: new Map(parts.config.agents.map((agent) => [agent.name, agentSettingsFrom(agent)])),
      hashCall: (tool, argumentsJson) => {
        const checked = parts.tools.check(tool, argumentsJson);
        return checked.ok ? parts.policy.hash(tool, checked.args) : undefined;
      },
      previewCall: (tool, argumentsJson) => {
        const checked = parts.tools.check(tool, argumentsJson);
        return checked.ok ? parts.policy.preview(checked.args) : argumentsJson.slice(0, 500);
      },
      checkEdit: (tool, argumentsJson) => checkEditedArguments(parts.tools, parts.policy, tool, argumentsJson),
      clock: parts.clock ?? (() => new Date()),
      files: inboundFiles(parts.config, parts.logger, parts.store, parts.clock ?? (() => new Date())),
      ...(parts.deliveryHoldMs === undefined ? {} : { deliveryHoldMs: parts.deliveryHoldMs }),
      ...(parts.eventPolicy === undefined ? {} : { policy: parts.eventPolicy }),
      stepSlots: new StepSlots(parts.config.queue.concurrency),
    });
    const runtime: AgentRuntime = {
      world: this.engine.context,
      outbox: this.engine.outbox,
      agents: new Map(parts.config.agents.map((agent) => [agent.name, agent])),
      providers: parts.providers,
      tools: parts.tools,
      policy: parts.policy,
      fitView: parts.fitView,
      modelLimits: parts.modelLimits,
      describeProviderError: parts.describeProviderError,
      stopSignal: this.stopController.signal,
      interrupts: this.engine.interrupts,
      toolFileLimits: parts.config.files ?? filesConfigSchema.parse({}),
    };
    // Only the schedules this process can post for: `roundtable chat` (the console alone) on the
    // service's config must not spend a Slack or Telegram schedule's occurrence it cannot show.
    const platforms = new Set(parts.channels.map((channel) => channel.platform));
    const schedules = schedulesFrom(parts.config).filter((schedule) => platforms.has(schedule.chat.platform));
    this.scheduler = new Scheduler(this.engine.context, schedules, {
      resolveChat: (chat) => this.resolveChat(chat),
      ...(parts.scheduleTickMs === undefined ? {} : { tickMs: parts.scheduleTickMs }),
    });
    this.engine.setTurnRunner(
      traceTurnRunner(
        new AgentTurnRunner(runtime),
        async (approvalId) => (await parts.store.getApproval(approvalId))?.turnId,
      ),
    );
  }

  /** Start the stored work (unfinished steps from before a restart first), then the channels. */
  async start(): Promise<void> {
    // One life per instance: its stop signal, once aborted, stays aborted.
    // Programming error: the service makes a new Roundtable for every start.
    if (this.stopController.signal.aborted) throw new Error("a stopped Roundtable cannot be started again");
    await this.engine.start();
    this.started = true;
    for (const channel of this.parts.channels) {
      try {
        await channel.start(this.engine.ingress);
      } catch (error) {
        // The service keeps running (other channels, stored work); /readyz shows the channel down.
        this.parts.logger.error({ err: error, platform: channel.platform }, "channel failed to start");
      }
    }
    // After the channels: a Slack chat's workspace is known once the adapter has started.
    await this.scheduler.start();
  }

  /** `POST /triggers/<name>` of each configured trigger, for the service's HTTP server (and its logger). */
  triggerRoutes(logger: Logger = this.parts.logger): WebhookRoute[] {
    return triggerRoutes(triggersFrom(this.parts.config), {
      store: this.parts.store,
      queue: this.parts.queue,
      logger,
      resolveChat: (chat) => this.resolveChat(chat),
      bodyAllowance: this.triggerBodies,
    });
  }

  /** Trigger body bytes in flight from `address`'s client now (for tests and metrics). */
  triggerBodyBytesInFlight(address: string): number {
    return this.triggerBodies.bytesInFlight(address);
  }

  /** A chat named by its id in the config, as its channel names it (Slack: with the workspace). */
  private resolveChat(chat: ChatRef): ChatRef {
    const adapter = this.engine.context.channels.main(chat.platform);
    return adapter && isChatResolvingChannel(adapter) ? adapter.resolveChat(chat) : chat;
  }

  /** Channels and whether each is connected, for `/readyz`. */
  channelStatus(): { platform: string; connected: boolean }[] {
    return this.parts.channels.map((channel) => ({ platform: channel.id, connected: channel.isConnected() }));
  }

  /** Resolves when no step is running and none is due (a turn parked on approval is idle). */
  whenIdle(): Promise<void> {
    return this.parts.queue.whenIdle();
  }

  /** Stop taking input, let running steps finish (a step cut by the stop runs again after restart). */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.scheduler.stop();
    for (const channel of this.parts.channels) {
      try {
        await channel.stop();
      } catch (error) {
        this.parts.logger.warn({ err: error, platform: channel.platform }, "channel did not stop cleanly");
      }
    }
    // Running steps get a grace period to finish; then they are cut and run again after restart.
    const stopped = this.engine.stop();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.parts.stopGraceMs ?? 10_000);
    });
    await Promise.race([stopped, grace]);
    clearTimeout(timer);
    this.stopController.abort();
    await stopped;
    for (const closeable of this.parts.closeables ?? []) await closeable.close();
  }
}

/** Inbound files fetched as configured, voice and audio transcribed when `files.transcribe` is set. */
function inboundFiles(config: Config, logger: Logger, store: Store, clock: () => Date): InboundFiles {
  const settings = config.files ?? filesConfigSchema.parse({});
  const fetcher = new InboundFileFetcher(settings, logger);
  const transcriber = transcriberFrom({ files: settings, providers: config.providers });
  if (transcriber === undefined) return fetcher;
  return withTranscription(fetcher, transcriber, logger, { store, clock, model: settings.transcribeModel });
}
