import { describe, expect, it } from "vitest";
import { documentPageTokens, estimateMessageTokens, imageTokens } from "./estimate-tokens.js";
import { filesInView, inlineTextBudget, toolImagesInView } from "./file-view.js";
import { maskToolHistory } from "./mask-tool-history.js";

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

  it("passes a PDF as document input with its pages counted, named only when the agent takes no image input", () => {
    const bytes = new TextEncoder().encode(
      "%PDF-1.7\n4 0 obj << /Type /Catalog /Pages 1 0 R >> endobj\n1 0 obj << /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >> endobj\n2 0 obj << /Type /Page /Parent 1 0 R >> endobj\n3 0 obj <</Type/Page/Parent 1 0 R>> endobj\ntrailer << /Size 5 /Root 4 0 R >>\n%%EOF\n",
    );
    const file = { name: "report.pdf", mediaType: "application/pdf", size: bytes.length, bytes };
    const view = filesInView("m1", [file], true);
    expect(view.lines).toEqual([`[file report.pdf, application/pdf, ${bytes.length} B, at inbox/m1/report.pdf]`]);
    expect(view.documents).toEqual([
      { name: "report.pdf", mediaType: "application/pdf", base64: Buffer.from(bytes).toString("base64"), pages: 2 },
    ]);
    expect(filesInView("m1", [file], false)).toEqual({ lines: view.lines, images: [], documents: [] });
  });

  it("counts a document's pages in a message's token estimate", () => {
    const plain = estimateMessageTokens({ role: "user", text: "ana: read" });
    const withDocument = estimateMessageTokens({
      role: "user",
      text: "ana: read",
      documents: [{ name: "a.pdf", mediaType: "application/pdf", base64: "AAAA", pages: 3 }],
    });
    expect(withDocument - plain).toBe(3 * documentPageTokens);
  });
});

describe("a tool's images in the view", () => {
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47]);
  const files = [
    { name: "chart.png", mediaType: "image/png", size: 4, bytes: png },
    { name: "report.csv", mediaType: "text/plain; charset=utf-8", size: 4, bytes: new TextEncoder().encode("a,b\n") },
    { name: "huge.png", mediaType: "application/octet-stream", size: 31_457_280, refusal: "too big" },
  ];

  it("are its stored images (not its other files, nor those refused), only for an agent with image input", () => {
    expect(toolImagesInView(files, true)).toEqual([
      { mediaType: "image/png", base64: Buffer.from(png).toString("base64") },
    ]);
    expect(toolImagesInView(files, false)).toEqual([]);
  });

  it("count in the budget like a person's, and stay with a result masked for another provider", () => {
    const images = toolImagesInView(files, true);
    const result = { role: "tool", toolCallId: "c1", toolName: "notes__picture", text: "a dot", images } as const;
    const { images: _left, ...withoutImages } = result;
    expect(estimateMessageTokens(result) - estimateMessageTokens(withoutImages)).toBe(imageTokens);
    const origin = { provider: "openai", model: "gpt-4.1" };
    const { messages } = maskToolHistory(
      [
        { role: "assistant", text: "", toolCalls: [{ id: "c1", name: "notes__picture", argumentsJson: "{}" }], origin },
        { ...result, origin },
      ],
      {
        provider: "anthropic",
        model: "claude-opus-4-6",
        providerType: "anthropic",
        budgetTokens: 1,
        reserveOutputTokens: 0,
      },
      true,
    );
    expect(messages[1]).toEqual({ role: "user", text: "[result of notes__picture: a dot]", images });
  });
});
