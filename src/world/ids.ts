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

/** The id of the turn an agent takes in answer to a message: one per message and agent. */
export function turnIdFor(messageId: string, agent: string): string {
  return `${messageId}>${agent}`;
}

/** The message a turn answers, read from its id ({@link turnIdFor}; agent names hold no `>`). */
export function triggerOfTurn(turnId: string): string {
  const cut = turnId.lastIndexOf(">");
  return cut < 0 ? turnId : turnId.slice(0, cut);
}
