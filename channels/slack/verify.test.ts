import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeApprovalValue, encodeApprovalValue } from "./action-value.js";
import { verifySlackSignature } from "./verify.js";

const secret = "shh-signing-secret";
const now = 1_800_000_000;

function sign(body: string, timestamp: number, key = secret): Record<string, string> {
  const digest = createHmac("sha256", key).update(`v0:${timestamp}:${body}`).digest("hex");
  return { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": `v0=${digest}` };
}

describe("verifySlackSignature", () => {
  it("accepts a body signed with the secret within five minutes", () => {
    expect(verifySlackSignature(sign("{}", now - 299), "{}", secret, now)).toEqual({ ok: true });
  });

  it("refuses a wrong secret, a changed body, an old timestamp and missing headers", () => {
    expect(verifySlackSignature(sign("{}", now, "other"), "{}", secret, now)).toMatchObject({
      ok: false,
      reason: "signature does not match",
    });
    expect(verifySlackSignature(sign("{}", now), '{"a":1}', secret, now)).toMatchObject({ ok: false });
    expect(verifySlackSignature(sign("{}", now - 301), "{}", secret, now)).toMatchObject({
      ok: false,
      reason: "timestamp outside the 5 minute window",
    });
    expect(verifySlackSignature({}, "{}", secret, now)).toMatchObject({
      ok: false,
      reason: "missing signature headers",
    });
    expect(
      verifySlackSignature({ ...sign("{}", now), "x-slack-request-timestamp": "soon" }, "{}", secret, now),
    ).toMatchObject({
      ok: false,
      reason: "malformed timestamp",
    });
  });
});

describe("approval button values", () => {
  it("carry only the approval id and the choice, and refuse anything else", () => {
    const value = encodeApprovalValue("ap_01HXYZ", "session");
    expect(value).toBe("ap_01HXYZ|session");
    expect(decodeApprovalValue(value)).toEqual({ approvalId: "ap_01HXYZ", choice: "session" });
    expect(decodeApprovalValue("ap_01HXYZ|forever")).toBeUndefined();
    expect(decodeApprovalValue("no choice")).toBeUndefined();
    expect(decodeApprovalValue("a|b|once")).toBeUndefined();
  });
});
