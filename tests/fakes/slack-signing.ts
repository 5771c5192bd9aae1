import { createHmac } from "node:crypto";

/** The headers Slack sends with a signed request: `v0=` + hex HMAC-SHA256 of `v0:{ts}:{body}`. */
export function slackSignatureHeaders(
  signingSecret: string,
  body: string,
  timestampSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = createHmac("sha256", signingSecret).update(`v0:${timestampSeconds}:${body}`).digest("hex");
  return {
    "x-slack-request-timestamp": String(timestampSeconds),
    "x-slack-signature": `v0=${signature}`,
  };
}
