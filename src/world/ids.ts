import { randomBytes } from "node:crypto";

/**
 * A new id: time-ordered prefix (so ids sort roughly by creation) and 80 random bits
 * (so approval ids carried by buttons cannot be guessed).
 */
export function newId(): string {
  const time = Date.now().toString(36).padStart(9, "0");
  return `${time}${randomBytes(10).toString("hex")}`;
}

/** A short id for typing in a chat; uniqueness in the chat is checked by the caller. */
export function newShortId(length = 4): string {
  return randomBytes(Math.ceil(length / 2))
    .toString("hex")
    .slice(0, length);
}
