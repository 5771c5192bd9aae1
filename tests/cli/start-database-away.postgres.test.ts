import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "../fakes/tcp-proxy.js";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { collect, spawnRoundtable } from "./run-roundtable.js";

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function status(url: string): Promise<number | "refused"> {
  try {
    return (await fetch(url)).status;
  } catch {
    return "refused";
  }
}

async function until(check: () => Promise<boolean>, what: string, log: () => string): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}; log:\n${log()}`);
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describePostgres("roundtable start with its database away", (serverUrl) => {
  it("waits instead of exiting: /healthz 200 and /readyz 503 while PostgreSQL refuses, then starts and is ready", async () => {
    const database = await createPostgresDatabase(serverUrl());
    cleanups.push(() => database.drop());
    const target = new URL(database.url);
    const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    cleanups.push(() => proxy.close());
    proxy.refuse();
    const directory = mkdtempSync(path.join(tmpdir(), "rt-start-away-"));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const port = await freePort();
    const child = spawnRoundtable(["start"], {
      cwd: directory,
      env: {
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "info",
        DATABASE_URL: proxy.urlFor(database.url),
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
        WEB_CONSOLE_TOKEN: "t".repeat(32),
      },
    });
    let log = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
    });
    let exited = false;
    const finished = collect(child).finally(() => {
      exited = true;
    });
    cleanups.push(() => {
      if (!exited) child.kill("SIGKILL");
    });
    await until(
      async () => log.includes("database unreachable at start: waiting for it"),
      "the waiting line",
      () => log,
    );
    await until(
      async () => (await status(`http://127.0.0.1:${port}/readyz`)) === 503,
      "/readyz 503",
      () => log,
    );
    const readyz = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(readyz.status).toBe(503);
    expect(JSON.stringify(await readyz.json())).toContain("database");
    expect(await status(`http://127.0.0.1:${port}/healthz`)).toBe(200);
    expect(exited).toBe(false);
    proxy.accept();
    await until(
      async () => (await status(`http://127.0.0.1:${port}/readyz`)) === 200,
      "/readyz 200",
      () => log,
    );
    expect(log).toContain('"msg":"database reachable: starting"');
    expect(exited).toBe(false);
    child.kill("SIGTERM");
    expect((await finished).code).toBe(0);
  }, 90_000);
});
