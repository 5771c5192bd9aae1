import { describe, expect, it } from "vitest";
import { splitMarkdown } from "./split-markdown.js";

function paragraphs(total: number): string {
  const out: string[] = [];
  let index = 0;
  while (out.join("\n\n").length < total) {
    out.push(`Paragraph ${index} ${"lorem ipsum dolor < & > ".repeat(5 + (index % 7))}`.trim());
    index += 1;
  }
  return out.join("\n\n").slice(0, total);
}

describe("splitMarkdown", () => {
  it("keeps a short text whole", () => {
    expect(splitMarkdown("hello", 4096)).toEqual(["hello"]);
  });

  it("splits 10,000 characters of paragraphs into several pieces ≤ 4096 whose concatenation is the text", () => {
    const text = paragraphs(10_000);
    expect(text).toHaveLength(10_000);
    const pieces = splitMarkdown(text, 4096);
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(4096);
    expect(pieces.join("")).toBe(text);
    // Cut on paragraph boundaries: every piece but the last ends with the blank line.
    for (const piece of pieces.slice(0, -1)) expect(piece.endsWith("\n\n")).toBe(true);
  });

  it("falls back to line breaks, then spaces, then a hard cut", () => {
    const lines = Array.from({ length: 30 }, (_, index) => `line ${index} ${"x".repeat(40)}`).join("\n");
    const byLine = splitMarkdown(lines, 500);
    expect(byLine.join("")).toBe(lines);
    for (const piece of byLine.slice(0, -1)) expect(piece.endsWith("\n")).toBe(true);

    const words = "word ".repeat(300);
    const bySpace = splitMarkdown(words, 256);
    expect(bySpace.join("")).toBe(words);
    for (const piece of bySpace) expect(piece.length).toBeLessThanOrEqual(256);
    for (const piece of bySpace.slice(0, -1)) expect(piece.endsWith(" ")).toBe(true);

    const solid = "y".repeat(1000);
    const hard = splitMarkdown(solid, 300);
    expect(hard.map((piece) => piece.length)).toEqual([300, 300, 300, 100]);
  });

  it("never cuts a surrogate pair", () => {
    const emoji = "😀".repeat(200);
    const pieces = splitMarkdown(emoji, 101);
    expect(pieces.join("")).toBe(emoji);
    for (const piece of pieces) expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });

  it("closes a code fence cut in two and reopens it in the next piece", () => {
    const code = Array.from({ length: 60 }, (_, index) => `const value${index} = ${index};`).join("\n");
    const text = `Intro\n\n\`\`\`ts\n${code}\n\`\`\`\n\nOutro`;
    const pieces = splitMarkdown(text, 600);
    expect(pieces.length).toBeGreaterThan(1);
    const first = pieces[0] ?? "";
    const second = pieces[1] ?? "";
    expect(first.trimEnd().endsWith("```")).toBe(true);
    expect(second.startsWith("```ts\n")).toBe(true);
    const stripped = pieces
      .map((piece, index) => {
        let result = piece;
        if (index > 0 && result.startsWith("```ts\n")) result = result.slice("```ts\n".length);
        // Cut at a line break: the closing fence follows the piece's own newline.
        if (index < pieces.length - 1 && result.endsWith("\n```")) result = result.slice(0, -"```".length);
        return result;
      })
      .join("");
    expect(stripped).toBe(text);
  });
});
