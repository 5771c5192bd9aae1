import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { RoundtableError } from "../errors/roundtable-error.js";

/**
 * Listening sockets the service's port gets on Linux. libuv accepts one connection per
 * listening socket per turn of the event loop (libuv PR 3696), so a process whose turns take
 * 100 to 300 ms (a thousand answers streaming at once) accepted 3 to 10 connections a second on
 * one socket: new connections waited in the kernel's queue for seconds, overflowed it, and
 * Slack's events, acked too late, were refused and sent again (docs/performance.md). With
 * several sockets on the port (`SO_REUSEPORT`; the kernel spreads connections over them) a
 * turn accepts up to one on each.
 */
export const linuxAcceptors = 8;

/** The port's listening sockets, one HTTP server each, all answering with `listener`. */
export interface Acceptors {
  servers: Server[];
  port: number;
}

/**
 * Listens on `port` (0: a free one) with {@link linuxAcceptors} sockets on Linux, one elsewhere.
 * The port is first bound alone, without `SO_REUSEPORT`: a port another program (or another
 * Roundtable) holds is refused as before (`cannot listen on port …`), and once this process's
 * sockets hold it, a later plain bind fails the same way.
 */
export async function listenAcceptors(
  listener: RequestListener,
  port: number,
  host: string | undefined,
  count = process.platform === "linux" ? linuxAcceptors : 1,
): Promise<Acceptors> {
  const probe = createServer(listener);
  await listenOn(probe, port, host, false);
  const bound = (probe.address() as AddressInfo).port;
  if (count <= 1) return { servers: [probe], port: bound };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const servers: Server[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const server = createServer(listener);
      await listenOn(server, bound, host, true);
      servers.push(server);
    }
  } catch (error) {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    throw error;
  }
  return { servers, port: bound };
}

function listenOn(server: Server, port: number, host: string | undefined, reusePort: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      reject(new RoundtableError("internal", `cannot listen on port ${port}: ${error.message}`, { cause: error }));
    };
    server.once("error", onError);
    server.listen({ port, ...(host === undefined ? {} : { host }), ...(reusePort ? { reusePort } : {}) }, () => {
      server.off("error", onError);
      resolve();
    });
  });
}
