/**
 * `roundtable demo` as a real process (the CLI, as `npm run demo` runs it): no key, no
 * network, no config. Through the web console's HTTP API, as the page uses it: @alice is
 * asked to list the files, a card appears, it is approved, the listing appears; then an
 * agent-to-agent exchange ends with a report to the person, without the turn-limit notice.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WebCard, WebEvent, WebItem } from "../../channels/web/web-items.js";
import { collect, spawnRoundtable } from "./run-roundtable.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** The chat as the page's first Server-Sent Event (the snapshot) shows it. */
async function snapshot(origin: string): Promise<WebItem[]> {
  const controller = new AbortController();
  const response = await fetch(`${origin}/chat/events?world=demo&name=ana`, {
    signal: controller.signal,
    headers: { authorization: `Bearer ${token}` },
  });
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no event stream");
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`event stream ended: ${text}`);
    text += decoder.decode(value, { stream: true });
    const frame = /^data: (.*)$/m.exec(text);
    if (frame?.[1] !== undefined) {
      controller.abort();
      const event = JSON.parse(frame[1]) as WebEvent;
      if (event.type !== "snapshot") throw new Error(`expected a snapshot, got ${event.type}`);
      return event.items;
    }
  }
}

async function until<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  // A bound on attempts, not on time: each attempt waits for the service's answer.
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The web console's token, from the login address the demo printed. */
let token = "";

function post(origin: string, pathname: string, body: unknown) {
  return fetch(`${origin}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json", "sec-fetch-site": "same-origin", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

const messages = (items: WebItem[]) =>
  items.flatMap((item) => (item.kind === "message" ? [{ by: item.author.name, text: item.text }] : []));

describe("roundtable demo", () => {
  it("shows an approved listing and an agent-to-agent exchange with no key and no network", async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), "rt-demo-cwd-"));
    const child = spawnRoundtable(["demo", "--port", "0"], { cwd, env: { LOG_LEVEL: "warn" } });
    const finished = collect(child);
    cleanup = async () => {
      child.kill("SIGTERM");
      await finished;
      rmSync(cwd, { recursive: true, force: true });
    };
    const banner = await new Promise<string>((resolve, reject) => {
      let buffered = "";
      child.stdout?.on("data", (chunk: Buffer | string) => {
        buffered += chunk.toString();
        if (/Ctrl-C stops/.test(buffered)) resolve(buffered);
      });
      child.on("exit", () => reject(new Error(`demo exited early: ${buffered}`)));
    });
    const login = /web console: open http:\/\/localhost:(\d+)\/login#token=(\S+)$/m.exec(banner);
    const port = Number(login?.[1]);
    expect(port).toBeGreaterThan(0);
    token = decodeURIComponent(login?.[2] ?? "");
    expect(token.length).toBeGreaterThan(20);
    const scratch = /Scratch folder: (.+)$/m.exec(banner)?.[1] ?? "";
    expect(existsSync(path.join(scratch, "notes.txt"))).toBe(true);
    const origin = `http://127.0.0.1:${port}`;

    const sent = await post(origin, "/chat/messages", {
      world: "demo",
      name: "ana",
      text: "@alice list the files",
      clientId: randomUUID(),
    });
    expect(sent.status).toBe(202);
    const card = await until<WebCard>("the approval card", async () => {
      const found = (await snapshot(origin)).find((item) => item.kind === "card");
      return found?.kind === "card" && found.card.state === "pending" ? found.card : undefined;
    });
    expect(card).toMatchObject({ agent: "alice", tool: "shell_cmd", argumentsJson: '{"command":"ls","args":["-la"]}' });
    const clicked = await post(origin, "/chat/approvals", {
      world: "demo",
      name: "ana",
      approvalId: card.approvalId,
      choice: "once",
    });
    expect(clicked.status).toBe(200);
    const listing = await until("the listing", async () =>
      messages(await snapshot(origin)).find((message) => message.by === "alice" && message.text.includes("notes.txt")),
    );
    expect(listing.text).toMatch(/^Here is what it printed:/);
    expect(listing.text).toContain("todo.md");

    await post(origin, "/chat/messages", {
      world: "demo",
      name: "ana",
      text: "@alice ask @bob what he thinks of the plan",
      clientId: randomUUID(),
    });
    const report = await until("alice's report", async () =>
      messages(await snapshot(origin)).find((message) => message.text.startsWith("@ana bob says:")),
    );
    expect(report.by).toBe("alice");
    const chat = messages(await snapshot(origin));
    const exchange = chat.slice(chat.findIndex((message) => message.text.includes("ask @bob")));
    expect(exchange.map((message) => message.by)).toEqual(["ana", "alice", "bob", "alice"]);
    expect(chat.some((message) => /without a human message/.test(message.text))).toBe(false);

    child.kill("SIGTERM");
    const run = await finished;
    expect(run.code).toBe(0);
    // The throwaway directory (database, config, scratch folder) is gone.
    expect(existsSync(scratch)).toBe(false);
  });
});
