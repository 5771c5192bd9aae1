import pg from "pg";
import { processCpuMilliseconds } from "./process-stats.js";

/**
 * The CPU the PostgreSQL server spends for one database: its backends (one per connection to
 * it) found in `pg_stat_activity`, their time read from `/proc` (the server must run on this
 * machine). Sampled while the load runs, so a backend that ends meanwhile still counts up to
 * its last sample. The server's shared processes (WAL writer, checkpointer) are left out: they
 * serve every database of the server, and other databases are busy on a shared machine.
 */
export class DatabaseCpu {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> = Promise.resolve();

  private constructor(
    private readonly client: pg.Client,
    private readonly database: string,
  ) {}

  static async connect(databaseUrl: string): Promise<DatabaseCpu> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return new DatabaseCpu(client, new URL(databaseUrl).pathname.slice(1));
  }

  /** Starts counting from now: backends that exist now count from their time now, new ones from zero. */
  async start(): Promise<void> {
    this.first.clear();
    this.last.clear();
    for (const [pid, cpu] of await this.backends()) {
      this.first.set(pid, cpu);
      this.last.set(pid, cpu);
    }
    this.timer = setInterval(() => {
      this.sampling = this.sampling.then(() => this.sample()).catch(() => undefined);
    }, 250);
  }

  /** CPU milliseconds the database's backends used since {@link start}. */
  async stop(): Promise<number> {
    clearInterval(this.timer);
    await this.sampling;
    await this.sample();
    let total = 0;
    for (const [pid, cpu] of this.last) total += cpu - (this.first.get(pid) ?? 0);
    return total;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.client.end();
  }

  private async sample(): Promise<void> {
    for (const [pid, cpu] of await this.backends()) this.last.set(pid, cpu);
  }

  private async backends(): Promise<Map<number, number>> {
    const { rows } = await this.client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [this.database],
    );
    const found = new Map<number, number>();
    for (const { pid } of rows) {
      const cpu = processCpuMilliseconds(pid);
      if (cpu !== undefined) found.set(pid, cpu);
    }
    return found;
  }
}
