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
    expect(mediaTypeOf(bytes("RIFF", [0, 0, 0, 0], "AVI LIST"))).toBe("application/octet-stream");
  });

  it("reads voice and audio from their magic numbers (what transcription takes)", () => {
    expect(mediaTypeOf(bytes("OggS", [0, 2]))).toBe("audio/ogg");
    expect(mediaTypeOf(bytes("ID3", [4, 0]))).toBe("audio/mpeg");
    expect(mediaTypeOf(bytes([0xff, 0xfb, 0x90, 0x64]))).toBe("audio/mpeg");
    expect(mediaTypeOf(bytes("RIFF", [0, 0, 0, 0], "WAVEfmt "))).toBe("audio/wav");
    expect(mediaTypeOf(bytes("fLaC", [0]))).toBe("audio/flac");
    expect(mediaTypeOf(bytes([0, 0, 0, 0x20], "ftypM4A ", [0]))).toBe("audio/mp4");
    expect(mediaTypeOf(bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f]))).toBe("audio/webm");
  });
});
