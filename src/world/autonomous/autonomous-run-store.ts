/** The stored runs of schedules and triggers: their records, the storage port, and who they are in a chat. */
import type { Author } from "../message.js";

/** What started a run: a schedule or a trigger (the chain starter is `<source>:<name>`). */
export type AutonomousSource = "schedule" | "trigger";

/** A stored run of a schedule or trigger. */
export interface AutonomousRunRecord {
  /** The run's id; its `system` message has the same id. */
  id: string;
  source: AutonomousSource;
  /** The schedule's or trigger's name. */
  name: string;
  /** A schedule's due time (ISO), a trigger's delivery id (or the run id when it had none). */
  occurrence: string;
  world: string;
  agent: string;
  chatKey: string;
  /** What the agent is addressed with (a trigger's with its body in place). */
  prompt: string;
  createdAt: Date;
}

/** The storage of runs: one row per source, name and occurrence. */
export interface AutonomousRunStore {
  /** Store a run unless one with its source, name and occurrence exists; the stored one either way. */
  addAutonomousRun(
    run: Omit<AutonomousRunRecord, "createdAt">,
  ): Promise<{ run: AutonomousRunRecord; created: boolean }>;
  getAutonomousRun(id: string): Promise<AutonomousRunRecord | undefined>;
  /** Runs stored since `since` (and of this source and name), newest first, at most `limit`. */
  listAutonomousRuns(filter: {
    since?: Date;
    source?: AutonomousSource;
    name?: string;
    limit?: number;
  }): Promise<AutonomousRunRecord[]>;
}

/** Whether a chain starter id is a schedule's or a trigger's (no person: `requester` is nobody). */
export function isAutonomousStarter(id: string): boolean {
  return /^(schedule|trigger):/.test(id);
}

/** The chain starter of a schedule's or trigger's runs: what budgets charge and approvals know. */
export function autonomousStarterId(source: AutonomousSource, name: string): string {
  return `${source}:${name}`;
}

/** The author of a run's `system` message: the line the chat shows is its name. */
export function autonomousAuthor(source: AutonomousSource, name: string): Author {
  return {
    kind: "system",
    id: autonomousStarterId(source, name),
    name: source === "schedule" ? `⏰ ${name}` : `⚡ ${name}`,
  };
}

/** The run's `system` message as the chat shows it (the prompt is the agent's, not the chat's). */
export function autonomousLine(author: Author): string | undefined {
  return author.kind === "system" && isAutonomousStarter(author.id) ? author.name : undefined;
}
