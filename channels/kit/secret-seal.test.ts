import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretSeal } from "./secret-seal.js";

describe("SecretSeal (AES-256-GCM under ROUNDTABLE_SECRET_KEY)", () => {
  const key = randomBytes(32).toString("base64");

  it("opens what it sealed for the same workspace, and nothing else", () => {
    const seal = new SecretSeal(key);
    const sealed = seal.seal("xoxb-secret-token", "slack:T0A");
    expect(sealed).not.toContain("xoxb");
    expect(sealed.startsWith("v1.")).toBe(true);
    expect(seal.open(sealed, "slack:T0A")).toBe("xoxb-secret-token");
    // Bound to its workspace, and to the key.
    expect(seal.open(sealed, "slack:T0B")).toBeUndefined();
    expect(new SecretSeal(randomBytes(32).toString("hex")).open(sealed, "slack:T0A")).toBeUndefined();
    // A changed byte fails the tag.
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3] ?? "", "base64url");
    body[0] = (body[0] ?? 0) ^ 1;
    expect(
      seal.open([parts[0], parts[1], parts[2], body.toString("base64url")].join("."), "slack:T0A"),
    ).toBeUndefined();
    expect(seal.open("not-sealed", "slack:T0A")).toBeUndefined();
    // Two seals of one token differ (a fresh IV each time).
    expect(seal.seal("xoxb-secret-token", "slack:T0A")).not.toBe(sealed);
  });

  it("refuses a missing or short key with what to set", () => {
    expect(() => new SecretSeal(undefined)).toThrow(/ROUNDTABLE_SECRET_KEY: 32 random bytes/);
    expect(() => new SecretSeal("c2hvcnQ=")).toThrow(/must be 32 bytes.*it is 5 bytes/);
    expect(() => new SecretSeal("ab".repeat(32))).not.toThrow();
  });
});
