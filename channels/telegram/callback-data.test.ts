import { describe, expect, it } from "vitest";
import { callbackDataLimit, decodeApprovalCallback, encodeApprovalCallback } from "./callback-data.js";

describe("approval callback data", () => {
  const approvalId = "0mfxq2k3a9f3c2e1d0b4a59687c1"; // the shape of the world's ids

  it("round-trips every choice within 64 bytes", () => {
    for (const choice of ["once", "session", "deny"] as const) {
      const data = encodeApprovalCallback(approvalId, choice);
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(callbackDataLimit);
      expect(decodeApprovalCallback(data)).toEqual({ approvalId, choice });
    }
  });

  it("refuses an id that would not fit", () => {
    expect(() => encodeApprovalCallback("x".repeat(62), "once")).toThrow(/does not fit/);
  });

  it.each(["", "ap:", "ap:abc", "ap:abc:x", "approve:abc:o", "ap:a b:o", "ap:abc:o:extra"])(
    "does not read %j",
    (data) => {
      expect(decodeApprovalCallback(data)).toBeUndefined();
    },
  );
});
