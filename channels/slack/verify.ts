import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** How far a request's timestamp may be from now (Slack's own recommendation: 5 minutes). */
const signatureWindowSeconds = 5 * 60;

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Slack's request signature: `x-slack-signature` is `v0=` + hex HMAC-SHA256 of
 * `v0:{x-slack-request-timestamp}:{raw body}` under the signing secret. The timestamp must be
 * within five minutes of now (replays of old requests are refused); the compare is constant-time.
 */
/**
 * What can be checked of a signed request before its body is read: both headers there, the
 * timestamp within the window, the signature shaped as `v0=<64 hex>`. A request that fails
 * here is refused without its body being read.
 */
export function checkSlackSignatureHeaders(
  headers: IncomingHttpHeaders,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): SignatureCheck {
  const timestamp = header(headers, "x-slack-request-timestamp");
  const signature = header(headers, "x-slack-signature");
  if (timestamp === undefined || signature === undefined) return { ok: false, reason: "missing signature headers" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "malformed timestamp" };
  if (Math.abs(nowSeconds - Number(timestamp)) > signatureWindowSeconds) {
    return { ok: false, reason: "timestamp outside the 5 minute window" };
  }
  if (!/^v0=[0-9a-f]{64}$/.test(signature)) return { ok: false, reason: "signature does not match" };
  return { ok: true };
}

export function verifySlackSignature(
  headers: IncomingHttpHeaders,
  rawBody: string,
  signingSecret: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): SignatureCheck {
  const headersCheck = checkSlackSignatureHeaders(headers, nowSeconds);
  if (!headersCheck.ok) return headersCheck;
  const timestamp = header(headers, "x-slack-request-timestamp") ?? "";
  const signature = header(headers, "x-slack-signature") ?? "";
  const expected = Buffer.from(
    `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`,
    "utf8",
  );
  const given = Buffer.from(signature, "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: "signature does not match" };
  }
  return { ok: true };
}
