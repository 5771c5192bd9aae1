import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InboundFileFetcher } from "../../src/app/inbound-file-fetcher.js";
import type { InboundAttachment } from "../../src/world/inbound.js";
import { quietLogger } from "../storage/test-databases.js";

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const mebibyte = 1024 * 1024;

/** A file host: files, a redirect on the same host, one to 127.0.0.2, a big file streamed without a length. */
function startFileHost(): Promise<{ server: Server; host: string; seenAuth: string[] }> {
  const seenAuth: string[] = [];
  const server = createServer((request, response) => {
    seenAuth.push(request.headers.authorization ?? "");
    const port = (server.address() as AddressInfo).port;
    switch (request.url) {
      case "/photo":
        response.end(png);
        return;
      case "/notes":
        response.end("name,count\nalpha,1\n");
        return;
      case "/stalled":
        // Headers, then nothing: only the fetcher's time limit ends this download.
        response.writeHead(200, { "content-type": "application/octet-stream" });
        response.write(Buffer.from([1]));
        return;
      case "/moved":
        response.writeHead(302, { location: "/photo" }).end();
        return;
      case "/elsewhere":
        response.writeHead(302, { location: `http://127.0.0.2:${port}/photo` }).end();
        return;
      case "/big": {
        response.writeHead(200, { "transfer-encoding": "chunked" });
        const chunk = Buffer.alloc(64 * 1024, 7);
        let sent = 0;
        const more = () => {
          while (sent < 3 * mebibyte) {
            sent += chunk.length;
            if (!response.write(chunk)) return void response.once("drain", more);
          }
          response.end();
        };
        response.on("error", () => undefined);
        more();
        return;
      }
      default:
        response.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, host: `127.0.0.1:${(server.address() as AddressInfo).port}`, seenAuth }),
    ),
  );
}

describe("InboundFileFetcher", () => {
  let fileHost: Awaited<ReturnType<typeof startFileHost>>;
  const fetcher = () =>
    new InboundFileFetcher({ maxBytes: mebibyte, maxMessageBytes: 2 * mebibyte, fetchTimeout: 10_000 }, quietLogger());
  const attachment = (
    name: string,
    pathName: string,
    overrides: Partial<InboundAttachment> = {},
  ): InboundAttachment => ({
    name,
    host: fileHost.host,
    locate: async () => ({ url: `http://${fileHost.host}${pathName}`, headers: { authorization: "Bearer xoxb-test" } }),
    ...overrides,
  });

  beforeAll(async () => {
    fileHost = await startFileHost();
  });
  afterAll(() => {
    fileHost.server.close();
  });

  it("downloads with the platform's credentials, types files from their bytes, names them safely", async () => {
    const files = await fetcher().collect([
      attachment("screen shot.txt", "/photo"),
      attachment("../notes.csv", "/notes"),
      attachment("../notes.csv", "/moved"),
    ]);
    expect(files.map(({ name, mediaType, size }) => ({ name, mediaType, size }))).toEqual([
      { name: "screen_shot.txt", mediaType: "image/png", size: png.length },
      { name: "notes.csv", mediaType: "text/plain; charset=utf-8", size: 19 },
      { name: "3-notes.csv", mediaType: "image/png", size: png.length },
    ]);
    expect(fileHost.seenAuth.at(-1)).toBe("Bearer xoxb-test");
  });

  it("refuses a redirect to another host (127.0.0.2) and a URL off the platform's host", async () => {
    const files = await fetcher().collect([
      attachment("a.png", "/elsewhere"),
      attachment("b.png", "/photo", { host: "files.example.com" }),
    ]);
    expect(files).toEqual([
      { name: "a.png", mediaType: "application/octet-stream", size: 0, refusal: "redirected to another host" },
      { name: "b.png", mediaType: "application/octet-stream", size: 0, refusal: "not on the platform's file host" },
    ]);
  });

  it("refuses a redirect from https to http on the same host: the token is not sent again in the clear", async () => {
    const asked: { url: string; authorization: string | null }[] = [];
    const tlsHost: typeof fetch = async (input, init) => {
      const url = String(input);
      asked.push({ url, authorization: new Headers(init?.headers).get("authorization") });
      if (url === "https://files.example.com/secure") {
        return new Response(null, { status: 302, headers: { location: "http://files.example.com/photo" } });
      }
      return new Response(png);
    };
    const limits = { maxBytes: mebibyte, maxMessageBytes: 2 * mebibyte, fetchTimeout: 10_000 };
    const files = await new InboundFileFetcher(limits, quietLogger(), tlsHost).collect([
      {
        name: "a.png",
        host: "files.example.com",
        locate: async () => ({
          url: "https://files.example.com/secure",
          headers: { authorization: "Bearer xoxb-test" },
        }),
      },
    ]);
    expect(files).toEqual([
      { name: "a.png", mediaType: "application/octet-stream", size: 0, refusal: "redirected from https to http" },
    ]);
    expect(asked).toEqual([{ url: "https://files.example.com/secure", authorization: "Bearer xoxb-test" }]);
  });

  it("refuses a file over the cap while reading it, and one announced bigger without fetching it", async () => {
    const before = fileHost.seenAuth.length;
    const files = await fetcher().collect([
      attachment("big.bin", "/big"),
      attachment("huge.bin", "/photo", { declaredSize: 30 * mebibyte }),
      attachment("ok.png", "/photo"),
    ]);
    expect(files.map((file) => file.refusal)).toEqual(["too big: over 1.0 MiB", "too big: over 1.0 MiB", undefined]);
    expect(files[1]?.size).toBe(30 * mebibyte);
    expect(fileHost.seenAuth.length - before).toBe(2);
  });

  it("takes uploaded bytes without a download, with the same caps (per file, per message) and typing", async () => {
    const before = fileHost.seenAuth.length;
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    const files = await fetcher().collect([
      { name: "shot.png", bytes: png },
      { name: "big.bin", bytes: new Uint8Array(mebibyte + 1) },
      { name: "a.bin", bytes: new Uint8Array(mebibyte) },
      { name: "b.bin", bytes: new Uint8Array(mebibyte) },
    ]);
    expect(files.map((file) => [file.name, file.mediaType, file.size, file.refusal])).toEqual([
      ["shot.png", "image/png", 10, undefined],
      ["big.bin", "application/octet-stream", mebibyte + 1, "too big: over 1.0 MiB"],
      ["a.bin", "application/octet-stream", mebibyte, undefined],
      ["b.bin", "application/octet-stream", mebibyte, "too big: the message's files are over 2.0 MiB"],
    ]);
    expect(files[1]?.bytes).toBeUndefined();
    expect(fileHost.seenAuth.length).toBe(before);
  });

  it("gives up a download that outlasts files.fetchTimeout, and takes the message's other files", async () => {
    const impatient = new InboundFileFetcher(
      { maxBytes: mebibyte, maxMessageBytes: 2 * mebibyte, fetchTimeout: 200 },
      quietLogger(),
    );
    const files = await impatient.collect([attachment("slow.bin", "/stalled"), attachment("ok.png", "/photo")]);
    expect(files.map((file) => file.refusal)).toEqual(["download timed out (200ms)", undefined]);
  });

  it("writes files read-only under inbox/<message id>/ in the world's workdir, once, all or none (set aside, then renamed)", async () => {
    const workdir = mkdtempSync(path.join(tmpdir(), "inbox-"));
    try {
      const files = await fetcher().collect([attachment("notes.csv", "/notes")]);
      const world = { name: "team", workdir };
      // A run that died halfway left its files aside: that is not placed, and it is cleared.
      mkdirSync(path.join(workdir, "inbox", ".partial", "telegram_1_42-dead"), { recursive: true });
      expect(await fetcher().placed(world, "telegram::1:#42")).toBe(false);
      await fetcher().place(world, "telegram::1:#42", files);
      await fetcher().place(world, "telegram::1:#42", files);
      expect(await fetcher().placed(world, "telegram::1:#42")).toBe(true);
      const written = path.join(workdir, "inbox", "telegram_1_42", "notes.csv");
      expect(readFileSync(written, "utf8")).toBe("name,count\nalpha,1\n");
      expect(statSync(written).mode & 0o222).toBe(0);
      expect(readdirSync(path.join(workdir, "inbox", ".partial"))).toEqual([]);
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });
});

describe("a world's inbox within files.inboxMaxBytes", () => {
  it("keeps the newest messages' files within the quota, the oldest leave the workdir first; 0 keeps all", async () => {
    const workdir = mkdtempSync(path.join(tmpdir(), "rt-inbox-quota-"));
    const file = (name: string) => ({
      name,
      mediaType: "text/plain",
      size: 60,
      bytes: new TextEncoder().encode("x".repeat(60)),
    });
    const limits = { maxBytes: 1024, maxMessageBytes: 4096, fetchTimeout: 5_000 };
    const capped = new InboundFileFetcher({ ...limits, inboxMaxBytes: 100 }, quietLogger());
    const world = { name: "main", workdir };
    for (const id of ["m-1", "m-2", "m-3"]) {
      await capped.place(world, id, [file(`${id}.txt`)]);
      // Apart in time, as messages are (the oldest is the one whose directory is oldest).
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const inbox = path.join(workdir, "inbox");
    expect(readdirSync(inbox).filter((name) => !name.startsWith("."))).toEqual(["m-3"]);
    expect(await capped.placed(world, "m-3")).toBe(true);

    const unlimited = new InboundFileFetcher(limits, quietLogger());
    for (const id of ["m-4", "m-5"]) await unlimited.place(world, id, [file(`${id}.txt`)]);
    expect(
      readdirSync(inbox)
        .filter((name) => !name.startsWith("."))
        .sort(),
    ).toEqual(["m-3", "m-4", "m-5"]);
    rmSync(workdir, { recursive: true, force: true });
  });
});
