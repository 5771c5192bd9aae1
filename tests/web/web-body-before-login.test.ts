/**
 * Access before the body (issue 36, High 2): the real service's web routes decide the login
 * from the headers, so an unauthenticated body (chunked or with a length) is answered 401 at
 * once and never read, and the upload cap is applied to logged-in uploads while they stream.
 */
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startWebService, type WebService } from "./web-service.js";

let web: WebService | undefined;
afterEach(async () => {
  await web?.close();
  web = undefined;
});

const mebibyte = 1024 * 1024;

interface Sent {
  /** The status line's code, or 0 when none came. */
  status: number;
  /** Body bytes the client got into its socket before the answer (or the close). */
  bodyBytesWritten: number;
}

/**
 * Sends `POST pathname` with a chunked body of `totalBytes` (64 KiB chunks, waiting for the
 * socket to drain so the client itself buffers little), stopping at the server's answer or close.
 */
function sendChunked(port: number, pathname: string, totalBytes: number, headers: Record<string, string> = {}) {
  return new Promise<Sent>((resolve) => {
    const socket: Socket = connect(port, "127.0.0.1");
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let written = 0;
    let answer = "";
    let done = false;
    const end = (): void => {
      if (done) return;
      done = true;
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      resolve({ status, bodyBytesWritten: written });
    };
    socket.on("data", (data: Buffer) => {
      answer += data.toString("latin1");
      if (answer.includes("\r\n\r\n")) end();
    });
    socket.on("error", end);
    socket.on("close", end);
    socket.on("connect", () => {
      const head = [
        `POST ${pathname} HTTP/1.1`,
        `host: 127.0.0.1:${port}`,
        "content-type: application/json",
        "sec-fetch-site: same-origin",
        "transfer-encoding: chunked",
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        "",
        "",
      ].join("\r\n");
      socket.write(head);
      const pump = (): void => {
        while (!done && written < totalBytes) {
          written += chunk.length;
          const more = socket.write(`${chunk.length.toString(16)}\r\n`) && socket.write(chunk) && socket.write("\r\n");
          if (!more) {
            socket.once("drain", pump);
            return;
          }
        }
        if (!done) socket.write("0\r\n\r\n");
      };
      pump();
    });
  });
}

describe("the web console decides access before it reads a body", () => {
  it("three chunked unauthenticated 60 MiB uploads get 401 before they are read; RSS grows under 10 MiB", async () => {
    web = await startWebService();
    const port = web.port;
    const before = process.memoryUsage().rss;
    const sent = await Promise.all([1, 2, 3].map(() => sendChunked(port, "/chat/uploads", 60 * mebibyte)));
    const growth = process.memoryUsage().rss - before;
    expect(sent.map((one) => one.status)).toEqual([401, 401, 401]);
    // Refused before the bodies were read: none of them got through whole.
    for (const one of sent) expect(one.bodyBytesWritten).toBeLessThan(60 * mebibyte);
    expect(growth).toBeLessThan(10 * mebibyte);
    const refusals = web.logs.filter((line) => line.msg.includes("login required"));
    expect(refusals.length).toBeGreaterThanOrEqual(3);
  });

  it("every web route answers an unauthenticated body 401 with the connection closed", async () => {
    web = await startWebService();
    for (const pathname of ["/chat/messages", "/chat/approvals", "/chat/commands", "/chat/uploads"]) {
      const response = await fetch(`${web.origin}${pathname}`, {
        method: "POST",
        headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
        body: "x".repeat(200_000),
      });
      expect(response.status, pathname).toBe(401);
      expect(response.headers.get("connection"), pathname).toBe("close");
    }
  });

  it("a logged-in upload over the cap is refused 413 while it streams, not after it was buffered", async () => {
    web = await startWebService({ extraConfig: ["files: { maxMessageBytes: 1048576 }"] });
    const cookie = await web.login();
    const sent = await sendChunked(web.port, "/chat/uploads", 40 * mebibyte, { cookie });
    expect(sent.status).toBe(413);
    expect(sent.bodyBytesWritten).toBeLessThan(40 * mebibyte);
  });
});
