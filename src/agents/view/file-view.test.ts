import { describe, expect, it } from "vitest";
import { estimateMessageTokens, imageTokens } from "./estimate-tokens.js";
import { filesInView, inlineTextBudget } from "./file-view.js";

describe("filesInView", () => {
  it("cuts a long text file to the budget and says so, names other files and refused ones", () => {
    const long = "x".repeat(inlineTextBudget + 10);
    const view = filesInView(
      "telegram::-1:#7",
      [
        {
          name: "big.txt",
          mediaType: "text/plain; charset=utf-8",
          size: long.length,
          bytes: new TextEncoder().encode(long),
        },
        { name: "data.bin", mediaType: "application/octet-stream", size: 3, bytes: Uint8Array.from([0, 1, 2]) },
        { name: "huge.mov", mediaType: "application/octet-stream", size: 31_457_280, refusal: "too big: over 20 MiB" },
      ],
      true,
    );
    expect(view.images).toEqual([]);
    expect(view.lines[0]).toBe("[file big.txt, text/plain; charset=utf-8, 8 KiB, at inbox/telegram_-1_7/big.txt]");
    expect(view.lines[1]).toMatch(
      /^--- big.txt \(first 8000 of 8010 characters; the whole file is at inbox\/telegram_-1_7\/big.txt\) ---\nx{8000}\n--- cut ---$/,
    );
    expect(view.lines.slice(2)).toEqual([
      "[file data.bin, application/octet-stream, 3 B, at inbox/telegram_-1_7/data.bin]",
      "[file huge.mov, 30 MiB: not passed on (too big: over 20 MiB)]",
    ]);
  });

  it("counts images in a message's token estimate", () => {
    const plain = estimateMessageTokens({ role: "user", text: "ana: look" });
    const withImages = estimateMessageTokens({
      role: "user",
      text: "ana: look",
      images: [
        { mediaType: "image/png", base64: "AAAA" },
        { mediaType: "image/png", base64: "AAAA" },
      ],
    });
    expect(withImages - plain).toBe(2 * imageTokens);
  });
});
