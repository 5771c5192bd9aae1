import { describe, expect, it } from "vitest";
import { mediaTypeOf } from "./media-type-of.js";

const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === "string" ? [...Buffer.from(part, "utf8")] : part)));

describe("mediaTypeOf", () => {
  it("reads images and PDFs from their magic numbers, whatever they are called", () => {
    expect(mediaTypeOf(bytes([0x89], "PNG\r\n\x1a\n", [0, 0]))).toBe("image/png");
    expect(mediaTypeOf(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg");
    expect(mediaTypeOf(bytes("GIF89a", [1, 0]))).toBe("image/gif");
    expect(mediaTypeOf(bytes("RIFF", [0, 0, 0, 0], "WEBPVP8 "))).toBe("image/webp");
    expect(mediaTypeOf(bytes("%PDF-1.7\n"))).toBe("application/pdf");
  });

  it("calls UTF-8 without control characters text, and anything else octet-stream", () => {
    expect(mediaTypeOf(bytes("name,count\nä,1\r\n"))).toBe("text/plain; charset=utf-8");
    expect(mediaTypeOf(new Uint8Array())).toBe("text/plain; charset=utf-8");
    expect(mediaTypeOf(bytes("abc", [0]))).toBe("application/octet-stream");
    expect(mediaTypeOf(bytes([0xc3, 0x28]))).toBe("application/octet-stream");
    expect(mediaTypeOf(bytes("RIFF", [0, 0, 0, 0], "WAVE"))).toBe("application/octet-stream");
  });
});
