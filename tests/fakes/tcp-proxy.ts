/**
 * A TCP proxy of the tests' own between the service and a server (PostgreSQL): it forwards
 * bytes both ways until told to cut every connection (both ends destroyed, as when the server
 * restarts or a network drops) or to refuse new ones for a while (each accepted socket closed
 * at once, as a server that is down answers). Used by the fault tests and the chaos harness.
 */
import net from "node:net";

export interface TcpProxy {
  /** `host:port` the proxy listens on. */
  readonly port: number;
  /** The URL `serverUrl` with its host and port replaced by the proxy's. */
  urlFor(serverUrl: string): string;
  /** Destroy every open connection (both sides). Resolves with how many were cut. */
  cut(): number;
  /** Close new connections at once until {@link accept} (or for `ms`, when given). */
  refuse(ms?: number): void;
  /** Forward new connections again. */
  accept(): void;
  /** Connections forwarded and open now. */
  openConnections(): number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ inbound: net.Socket; outbound: net.Socket }>();
  let refusing = false;
  let refuseTimer: NodeJS.Timeout | undefined;
  const server = net.createServer((inbound) => {
    if (refusing) {
      inbound.destroy();
      return;
    }
    const outbound = net.connect(target.port, target.host);
    const pair = { inbound, outbound };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on("error", end).on("close", end);
    outbound.on("error", end).on("close", end);
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no port");
  const port = address.port;
  return {
    port,
    urlFor(serverUrl) {
      const url = new URL(serverUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    cut() {
      const count = pairs.size;
      for (const { inbound, outbound } of [...pairs]) {
        inbound.destroy();
        outbound.destroy();
      }
      pairs.clear();
      return count;
    },
    refuse(ms) {
      refusing = true;
      if (refuseTimer) clearTimeout(refuseTimer);
      refuseTimer = ms === undefined ? undefined : setTimeout(() => (refusing = false), ms);
    },
    accept() {
      refusing = false;
      if (refuseTimer) clearTimeout(refuseTimer);
      refuseTimer = undefined;
    },
    openConnections: () => pairs.size,
    async close() {
      if (refuseTimer) clearTimeout(refuseTimer);
      for (const { inbound, outbound } of pairs) {
        inbound.destroy();
        outbound.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
