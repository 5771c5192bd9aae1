import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { WebCredentials } from "../../channels/web/credentials.js";
import { webFileRoute, webFileUrl } from "../../channels/web/file-route.js";
import { guardRoute } from "../../channels/web/guard.js";
import { LoginAttempts } from "../../channels/web/login-attempts.js";
import { memoryLoginSessions, WebSessions } from "../../channels/web/sessions.js";
import { TrustedProxies } from "../../channels/web/trusted-proxies.js";
import { storedWebFiles } from "../../src/app/web-files.js";
import { onePixelPng } from "../fakes/mcp-notes-tools.js";
import { openTestStore, temporaryDatabaseUrl } from "../world/harness.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const png = new Uint8Array(Buffer.from(onePixelPng, "base64"));
const agent = { kind: "agent" as const, id: "alice", name: "alice" };

async function serve() {
  const { store, close } = await openTestStore(temporaryDatabaseUrl());
  closers.push(close);
  await store.ensureChat("web:team:browser:", "team", "web");
  await store.ensureChat("telegram::-100:", "team", "telegram");
  await store.addMessage({
    id: "call-1:tool-files",
    chatKey: "web:team:browser:",
    author: agent,
    text: "chart.png, run.sh from notes__chart",
    files: [
      { name: "chart.png", mediaType: "image/png", size: png.length, bytes: png },
      {
        name: "run.sh",
        mediaType: "text/plain; charset=utf-8",
        size: 9,
        bytes: new TextEncoder().encode("echo hi\n\n"),
      },
      { name: "huge.bin", mediaType: "application/octet-stream", size: 99, refusal: "too big" },
    ],
  });
  await store.addMessage({
    id: "call-2:tool-files",
    chatKey: "telegram::-100:",
    author: agent,
    text: "x.png from notes__chart",
    files: [{ name: "x.png", mediaType: "image/png", size: png.length, bytes: png }],
  });
  const credentials = new WebCredentials("secret");
  const auth = {
    credentials,
    sessions: new WebSessions(memoryLoginSessions(), credentials),
    attempts: new LoginAttempts(),
    proxies: new TrustedProxies(),
  };
  const route = guardRoute(webFileRoute(storedWebFiles(store), ["team"]), auth, pino({ level: "silent" }));
  const server: Server = createServer((request, response) => void route.handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return (url: string, token = "secret") =>
    fetch(`${origin}${url}`, token === "" ? {} : { headers: { authorization: `Bearer ${token}` } });
}

describe("GET /chat/file: a message's file for the logged-in web console", () => {
  it("serves an image inline and any other file as an attachment, with nothing that runs", async () => {
    const get = await serve();
    const image = await get(webFileUrl("call-1:tool-files", "chart.png"));
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("content-disposition")).toBe("inline; filename*=UTF-8''chart.png");
    expect(image.headers.get("x-content-type-options")).toBe("nosniff");
    expect(image.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(Buffer.from(await image.arrayBuffer()).equals(Buffer.from(png))).toBe(true);
    const script = await get(webFileUrl("call-1:tool-files", "run.sh"));
    expect(script.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''run.sh");
    expect(await script.text()).toBe("echo hi\n\n");
  });

  it("needs a login, and answers 404 for a refused file, another platform's chat or an unknown message", async () => {
    const get = await serve();
    expect((await get(webFileUrl("call-1:tool-files", "chart.png"), "")).status).toBe(401);
    expect((await get(webFileUrl("call-1:tool-files", "chart.png"), "wrong")).status).toBe(401);
    expect((await get(webFileUrl("call-1:tool-files", "huge.bin"))).status).toBe(404);
    expect((await get(webFileUrl("call-2:tool-files", "x.png"))).status).toBe(404);
    expect((await get(webFileUrl("nope", "chart.png"))).status).toBe(404);
    expect((await get("/chat/file?message=call-1%3Atool-files")).status).toBe(400);
  });
});
