import { describe, expect, it } from "vitest";
import { mcpResultText } from "./mcp-result-text.js";

describe("mcpResultText", () => {
  it("joins text content and describes the rest briefly", () => {
    expect(
      mcpResultText({
        content: [
          { type: "text", text: "first" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
          { type: "audio", data: "AAA=", mimeType: "audio/wav" },
          { type: "resource_link", name: "readme", uri: "file:///readme.md" },
          { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
          {
            type: "resource",
            resource: { uri: "file:///b.bin", blob: "AAAAAA==", mimeType: "application/octet-stream" },
          },
          { type: "text", text: "last" },
        ],
      }),
    ).toBe(
      [
        "first",
        "[image image/png, 3 bytes]",
        "[audio audio/wav, 2 bytes]",
        "[resource link readme: file:///readme.md]",
        "[resource file:///a.txt]\ninside",
        "[resource file:///b.bin application/octet-stream, 4 bytes]",
        "last",
      ].join("\n"),
    );
  });

  it("falls back to structured content, then to a note", () => {
    expect(mcpResultText({ content: [], structuredContent: { count: 2 } })).toBe('{"count":2}');
    expect(mcpResultText({ content: [] })).toBe("(no content)");
    expect(mcpResultText({ toolResult: "old style" })).toBe("old style");
  });
});
