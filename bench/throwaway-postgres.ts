import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { freePort, repositoryRoot } from "./service-process.js";

/** A PostgreSQL server the bench started for itself (`--db postgres` without a URL). */
export interface ThrowawayPostgres {
  url: string;
  stop(): void;
}

const script = path.join(repositoryRoot, "scripts", "postgres-up.sh");

/** Whether a PostgreSQL server is installed where `scripts/postgres-up.sh` looks for one. */
export function postgresInstalled(): boolean {
  const root = "/usr/lib/postgresql";
  return existsSync(root) && readdirSync(root).some((version) => existsSync(path.join(root, version, "bin", "initdb")));
}

/**
 * Starts a throwaway server with `scripts/postgres-up.sh` on a free port (production
 * durability with `durable`: fsync and synchronous_commit on); undefined when none is installed.
 */
export async function startThrowawayPostgres(durable: boolean): Promise<ThrowawayPostgres | undefined> {
  if (!postgresInstalled()) return undefined;
  const port = await freePort();
  // A directory of its own under /tmp: run as root, the script runs the server as postgres, who
  // cannot enter the bench's private temporary directory.
  const dataDirectory = `/tmp/roundtable-bench-pg-${port}`;
  const started = spawnSync("bash", [script, ...(durable ? ["--durable"] : []), String(port), dataDirectory], {
    encoding: "utf8",
  });
  if (started.status !== 0) throw new Error(`scripts/postgres-up.sh failed: ${started.stderr.trim()}`);
  return {
    url: started.stdout.trim(),
    stop: () => {
      spawnSync("bash", [script, "--stop", String(port), dataDirectory]);
    },
  };
}

/** The server's durability settings, as the figures' title says them. */
export async function postgresDurability(serverUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const fsync = (await client.query<{ fsync: string }>("SHOW fsync")).rows[0]?.fsync ?? "?";
    const commit =
      (await client.query<{ synchronous_commit: string }>("SHOW synchronous_commit")).rows[0]?.synchronous_commit ??
      "?";
    return `fsync ${fsync}, synchronous_commit ${commit}`;
  } finally {
    await client.end();
  }
}

/** Samples the connections to one database (its backends in `pg_stat_activity`). */
export class ConnectionSampler {
  private readonly counts: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> = Promise.resolve();

  private constructor(
    private readonly client: pg.Client,
    private readonly database: string,
  ) {}

  static async connect(databaseUrl: string): Promise<ConnectionSampler> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return new ConnectionSampler(client, new URL(databaseUrl).pathname.slice(1));
  }

  start(): void {
    this.timer = setInterval(() => {
      this.sampling = this.sampling.then(() => this.sample()).catch(() => undefined);
    }, 500);
  }

  /** The largest count seen (the sampler's own connection left out). */
  async stop(): Promise<number> {
    clearInterval(this.timer);
    await this.sampling;
    await this.client.end();
    return Math.max(0, ...this.counts);
  }

  private async sample(): Promise<void> {
    const { rows } = await this.client.query<{ count: string }>(
      "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [this.database],
    );
    this.counts.push(Number(rows[0]?.count ?? 0));
  }
}
