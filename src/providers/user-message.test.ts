import { describe, expect, it } from "vitest";
import type { ProviderErrorCode } from "../errors/roundtable-error.js";
import { userMessageFor } from "./user-message.js";

const codes: ProviderErrorCode[] = [
  "provider.rate-limited",
  "provider.auth",
  "provider.context-too-long",
  "provider.content-refused",
  "provider.server",
  "provider.invalid-request",
  "provider.network",
  "provider.malformed",
  "provider.aborted",
];

describe("userMessageFor", () => {
  it("gives every code its own short, single-line sentence", () => {
    const messages = codes.map((code) => userMessageFor(code, { provider: "openai" }));
    expect(new Set(messages).size).toBe(codes.length);
    for (const message of messages) {
      expect(message.length).toBeLessThan(140);
      expect(message).not.toContain("\n");
      expect(message).toMatch(/\.$/);
    }
  });

  it("says when to try again after a rate limit", () => {
    expect(userMessageFor("provider.rate-limited")).toBe(
      "The model provider is rate limiting us; try again in a minute.",
    );
    expect(userMessageFor("provider.rate-limited", { retryAfterMs: 300_000 })).toMatch(/about 5 minutes/);
  });
});
