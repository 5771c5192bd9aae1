import pg from "pg";

/** A fresh database on the server `serverUrl` names; resolves with its URL. */
export async function freshPostgresDatabase(serverUrl: string): Promise<string> {
  const name = `roundtable_bench_${Date.now()}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropPostgresDatabase(serverUrl: string, databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`);
  await client.end();
}
