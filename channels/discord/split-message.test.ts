import { describe, expect, it } from "vitest";
import { splitMessage } from "./split-message.js";

describe("splitMessage", () => {
  it("keeps a short text whole", () => {
    expect(splitMessage("hello")).toEqual(["hello"]);
  });

  it("cuts at paragraph breaks, every piece within the limit", () => {
    const paragraphs = Array.from({ length: 30 }, (_, index) => `Paragraph ${index} ${"word ".repeat(30).trim()}`);
    const pieces = splitMessage(paragraphs.join("\n\n"), 500);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(500);
    expect(pieces.join("\n\n")).toBe(paragraphs.join("\n\n"));
  });

  it("moves the cut before a code block that fits in one piece", () => {
    const block = ["```ts", ...Array.from({ length: 10 }, (_, index) => `const line${index} = ${index};`), "```"].join(
      "\n",
    );
    const text = `${"intro ".repeat(40).trim()}\n\n${block}\n\nafter`;
    const pieces = splitMessage(text, 400);
    const withBlock = pieces.find((piece) => piece.includes("```ts"));
    expect(withBlock?.startsWith("```ts")).toBe(true);
    expect(withBlock?.match(/```/g)).toHaveLength(2);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(400);
  });

  it("closes a block too long for one piece and reopens it with its language", () => {
    const lines = Array.from({ length: 120 }, (_, index) => `print("line ${index}")`);
    const text = `Here:\n\n\`\`\`python\n${lines.join("\n")}\n\`\`\`\n\nDone.`;
    const pieces = splitMessage(text, 600);
    expect(pieces.length).toBeGreaterThan(3);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(600);
      expect((piece.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    for (const piece of pieces.slice(1, -1)) expect(piece.startsWith("```python\n")).toBe(true);
    const code = pieces
      .join("\n")
      .split("\n")
      .filter((line) => line.startsWith("print("));
    expect(code).toEqual(lines);
  });

  it("hard-cuts a line without spaces", () => {
    const pieces = splitMessage("x".repeat(45), 20);
    expect(pieces).toEqual(["x".repeat(20), "x".repeat(20), "x".repeat(5)]);
  });
});
