import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { ConfigError } from "../../src/errors/roundtable-error.js";

/** The header Telegram sends with every webhook request when a secret token was set. */
const secretTokenHeader = "x-telegram-bot-api-secret-token";

/**
 * The webhook secret: the configured one, else one derived from the bot token, so that every
 * process of the service (and every restart) agrees on it without storing anything.
 * Telegram allows 1–256 characters of `A-Z a-z 0-9 _ -`.
 */
export function webhookSecretFor(token: string, configured?: string): string {
  if (configured !== undefined && configured !== "") {
    if (!/^[A-Za-z0-9_-]{1,256}$/.test(configured)) {
      throw new ConfigError("the Telegram webhook secret may only hold 1–256 characters of A–Z, a–z, 0–9, _ and -");
    }
    return configured;
  }
  return createHash("sha256").update(`roundtable-telegram-webhook\u0000${token}`).digest("hex");
}

export type SecretCheck = { ok: true } | { ok: false; reason: "missing" | "wrong" };

/** Constant-time check of the secret token header. */
export function checkWebhookSecret(headers: IncomingHttpHeaders, secret: string): SecretCheck {
  const header = headers[secretTokenHeader];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === "") return { ok: false, reason: "missing" };
  const given = Buffer.from(value, "utf8");
  const expected = Buffer.from(secret, "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "wrong" };
  return { ok: true };
}
