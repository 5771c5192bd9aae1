import type { Logger } from "../../log/logger.js";
import type { Store } from "../store.js";

/** Who stopped a turn; the reason an interrupted turn's signal carries. */
export interface TurnStop {
  turnId: string;
  by: { id: string; name: string };
}

/** A watch on one turn's work in this process. */
export interface TurnWatch {
  /** Aborts (with a {@link TurnStop} as its reason) when the turn is stopped. */
  signal: AbortSignal;
  /** The work is over: stop watching. */
  release(): void;
}

/** How often the stored stop markers of watched turns are read (a stop from another process). */
const defaultPollMs = 500;

/**
 * Lets `/stop` reach work that is running right now: a model stream or a tool run registers a
 * watch on its turn; a stop in this process aborts it at once, and a stop stored by another
 * process (the turn's stop marker) is noticed within one poll. The poll runs only while
 * something is watched and reads the stop markers of every watched turn in a few statements.
 */
export class TurnInterrupts {
  private readonly watched = new Map<string, Set<AbortController>>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(
    private readonly store: Pick<Store, "stoppedTurns">,
    private readonly logger: Logger,
    private readonly pollMs = defaultPollMs,
  ) {}

  watch(turnId: string): TurnWatch {
    const controller = new AbortController();
    let controllers = this.watched.get(turnId);
    if (!controllers) {
      controllers = new Set();
      this.watched.set(turnId, controllers);
    }
    controllers.add(controller);
    this.timer ??= setInterval(() => void this.poll(), this.pollMs).unref();
    return {
      signal: controller.signal,
      release: () => {
        const set = this.watched.get(turnId);
        set?.delete(controller);
        if (set?.size === 0) this.watched.delete(turnId);
        if (this.watched.size === 0) this.stopPolling();
      },
    };
  }

  /** Abort this process's work on the stopped turn now. */
  interrupt(stop: TurnStop): void {
    for (const controller of this.watched.get(stop.turnId) ?? []) controller.abort(stop);
  }

  /** Stop polling (the service is stopping). */
  close(): void {
    this.stopPolling();
  }

  private stopPolling(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      // A few statements for every watched turn (a thousand answers in flight), not one each.
      for (const turn of await this.store.stoppedTurns([...this.watched.keys()]))
        this.interrupt({ turnId: turn.id, by: turn.stoppedBy });
    } catch (error) {
      this.logger.warn({ err: error }, "could not read the stop markers of running turns");
    } finally {
      this.polling = false;
    }
  }
}

/** The stop behind an aborted signal, when a `/stop` aborted it. */
export function stopOf(signal: AbortSignal): TurnStop | undefined {
  const reason: unknown = signal.reason;
  if (!signal.aborted || typeof reason !== "object" || reason === null) return undefined;
  const stop = reason as Partial<TurnStop>;
  return typeof stop.turnId === "string" && typeof stop.by?.name === "string" ? (stop as TurnStop) : undefined;
}
