import { createHash } from "node:crypto";

/** The id of an inbound message is derived from the platform's id: a second delivery collides. */
export function inboundMessageId(key: string, platformMessageId: string): string {
  return `in-${createHash("sha256").update(`${key}\u0000${platformMessageId}`).digest("hex").slice(0, 32)}`;
}
