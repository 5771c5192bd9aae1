import { describe, expect, it } from "vitest";
import { effectiveTimeoutMs } from "./shell-tool-source.js";
import { CappedOutput } from "./capped-output.js";

function collect(maxBytes: number, chunks: string[]): string {
  const output = new CappedOutput(maxBytes);
  for (const chunk of chunks) output.append(Buffer.from(chunk));
  return output.text();
}

describe("CappedOutput", () => {
  it("keeps everything up to the cap", () => {
    expect(collect(10, ["abc", "defghij"])).toBe("abcdefghij");
    expect(collect(10, [])).toBe("");
  });

  it("cuts the middle and says how many bytes", () => {
    expect(collect(10, ["0123456789", "abcdefghij"])).toBe("01234\n…[10 bytes cut]…\nfghij");
  });

  it("keeps the true end across many small chunks", () => {
    const chunks = Array.from({ length: 1000 }, (_, index) => `${index % 10}`);
    expect(collect(6, chunks)).toBe("012\n…[994 bytes cut]…\n789");
  });
});

describe("effectiveTimeoutMs", () => {
  it("takes the call's seconds, never above the configured time", () => {
    expect(effectiveTimeoutMs(undefined, 60_000)).toBe(60_000);
    expect(effectiveTimeoutMs(5, 60_000)).toBe(5_000);
    expect(effectiveTimeoutMs(0.25, 60_000)).toBe(250);
    expect(effectiveTimeoutMs(600, 60_000)).toBe(60_000);
    expect(effectiveTimeoutMs(0, 60_000)).toBe(60_000);
  });
});
