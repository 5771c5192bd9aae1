import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type Acceptors, linuxAcceptors, listenAcceptors } from "../../src/http/listen-acceptors.js";

let acceptors: Acceptors | undefined;
afterEach(async () => {
  for (const server of acceptors?.servers ?? []) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  acceptors = undefined;
});

/** Listening sockets on `port` (/proc/net/tcp: state 0A is LISTEN). */
function listeningSockets(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  return ["/proc/net/tcp", "/proc/net/tcp6"]
    .flatMap((file) => readFileSync(file, "utf8").split("\n").slice(1))
    .filter((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[1]?.endsWith(`:${hex}`) && fields[3] === "0A";
    }).length;
}

const onLinux = process.platform === "linux";

describe("the service's listening sockets", () => {
  it.runIf(onLinux)(
    "its port has several, and the kernel spreads new connections over all of them (a turn of the event loop accepts one on each)",
    async () => {
      acceptors = await listenAcceptors((_request, response) => response.end("ok"), 0, "127.0.0.1");
      expect(acceptors.servers).toHaveLength(linuxAcceptors);
      expect(listeningSockets(acceptors.port)).toBe(linuxAcceptors);
      const accepted = acceptors.servers.map(() => 0);
      for (const [index, server] of acceptors.servers.entries()) {
        server.on("connection", () => {
          accepted[index] = (accepted[index] ?? 0) + 1;
        });
      }
      const port = acceptors.port;
      const sockets = await Promise.all(
        Array.from(
          { length: 200 },
          () =>
            new Promise<ReturnType<typeof connect>>((resolve, reject) => {
              const socket = connect(port, "127.0.0.1", () => resolve(socket));
              socket.once("error", reject);
            }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const socket of sockets) socket.destroy();
      expect(accepted.reduce((sum, count) => sum + count, 0)).toBe(200);
      // Spread by the connections' addresses: with one socket, every connection waits for it.
      expect(accepted.every((count) => count > 0)).toBe(true);
    },
  );

  it("a second start on the same port is refused (cannot listen), as with one socket", async () => {
    acceptors = await listenAcceptors((_request, response) => response.end("ok"), 0, "127.0.0.1");
    await expect(listenAcceptors(() => undefined, acceptors.port, "127.0.0.1")).rejects.toThrow(
      `cannot listen on port ${acceptors.port}`,
    );
  });
});
