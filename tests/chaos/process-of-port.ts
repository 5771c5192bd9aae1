import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * Which of `pids` owns the TCP connection from 127.0.0.1:`clientPort` to `serverPort`, read
 * from Linux's /proc (the socket's inode in /proc/net/tcp, then the process whose fd table links
 * to it). Undefined when none of them does, or where there is no /proc. Called when the
 * connection opens, while its process is certainly alive: a SIGKILL later empties its fd table.
 */
export function processOfPort(clientPort: number, serverPort: number, pids: Iterable<number>): number | undefined {
  const inode = socketInode(clientPort, serverPort);
  if (inode === undefined) return undefined;
  const link = `socket:[${inode}]`;
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone already, or not Linux
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

function socketInode(clientPort: number, serverPort: number): string | undefined {
  const local = `:${hexPort(clientPort)}`;
  const remote = `:${hexPort(serverPort)}`;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      // sl local_address rem_address st tx_queue:rx_queue tr:when retrnsmt uid timeout inode …
      const fields = line.trim().split(/\s+/);
      const [, localAddress, remoteAddress] = fields;
      if (localAddress?.endsWith(local) && remoteAddress?.endsWith(remote)) return fields[9];
    }
  }
  return undefined;
}

function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, "0");
}
