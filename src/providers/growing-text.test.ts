import { describe, expect, it } from "vitest";
import { GrowingText } from "./growing-text.js";

describe("GrowingText", () => {
  it("is the pieces in order, whatever how many were joined on the way", () => {
    const growing = new GrowingText();
    expect(growing.isEmpty).toBe(true);
    expect(growing.text).toBe("");
    const pieces = Array.from({ length: 401 }, (_, index) => `t${index} `);
    for (const [index, piece] of pieces.entries()) {
      growing.append(piece);
      if (index === 40) expect(growing.text).toBe(pieces.slice(0, 41).join(""));
    }
    growing.append("");
    expect(growing.isEmpty).toBe(false);
    expect(growing.text).toBe(pieces.join(""));
  });

  it("stays empty for empty pieces", () => {
    const growing = new GrowingText();
    growing.append("");
    expect(growing.isEmpty).toBe(true);
    expect(growing.text).toBe("");
  });
});
