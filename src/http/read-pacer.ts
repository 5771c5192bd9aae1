import type { Socket } from "node:net";

/**
 * libuv's read switch under a `net.Socket`: Node's `TCPWrap`. Under a TLS socket the handle is
 * a `TLSWrap`, whose own switch leaves its TCP handle (`_parent`) reading; that one is switched.
 */
interface ReadHandle {
  /** Whether Node wants the socket read (Node's flow control sets it; we leave it as it is). */
  reading: boolean;
  readStart(): number;
  readStop(): number;
}

function handleOf(socket: Socket): ReadHandle | undefined {
  const outer = (socket as unknown as { _handle?: (ReadHandle & { _parent?: ReadHandle | null }) | null })._handle;
  const handle = outer?._parent ?? outer;
  return handle && typeof handle.readStop === "function" && typeof handle.readStart === "function" ? handle : undefined;
}

/**
 * Holds sockets' reads for one to two ticks, so that what arrives meanwhile waits in the kernel
 * and is then read at once: one read, one parse and one wake-up of the reader for several of a
 * model's token events instead of one each (docs/performance.md, "Reading a model's stream in
 * bursts"). One timer serves every held socket. A socket Node itself has stopped reading (its
 * flow control: `reading` false) is left alone, and Node starts it again as it would.
 */
export class ReadPacer {
  private fresh = new Set<Socket>();
  private aged = new Set<Socket>();
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly tickMs: number) {}

  /** Stops reading `socket` for one to two ticks (nothing if it is held already). */
  hold(socket: Socket): void {
    if (this.fresh.has(socket) || this.aged.has(socket) || socket.destroyed) return;
    const handle = handleOf(socket);
    if (!handle?.reading || handle.readStop() !== 0) return;
    this.fresh.add(socket);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.tickMs);
      this.timer.unref();
    }
  }

  /**
   * Reads `socket` again now, if it is held: its body has ended, and the connection goes back
   * to its pool, where a close by the server must be seen before the next request is sent on it.
   */
  letGo(socket: Socket): void {
    if (this.fresh.delete(socket) || this.aged.delete(socket)) readAgain(socket);
  }

  /** Whether `socket`'s reads are held now. */
  holds(socket: Socket): boolean {
    return this.fresh.has(socket) || this.aged.has(socket);
  }

  /** Reads again the sockets held since the last tick or before. */
  private tick(): void {
    const due = this.aged;
    this.aged = this.fresh;
    this.fresh = new Set();
    for (const socket of due) readAgain(socket);
    if (this.aged.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

function readAgain(socket: Socket): void {
  if (socket.destroyed) return;
  const handle = handleOf(socket);
  if (handle?.reading && handle.readStart() !== 0) socket.destroy(new Error("could not read the socket again"));
}

/**
 * The pacer of model streams ({@link modelStreamFetch} in node-http-fetch.ts): held 50 to 100 ms.
 * Chats see streamed words once a second at the most, so this costs them nothing.
 */
export const modelStreamPacer = new ReadPacer(50);
