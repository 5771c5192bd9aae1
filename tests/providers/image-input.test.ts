/**
 * A person's image reaches each provider as its API's image input, as the SDKs document it:
 * OpenAI Chat Completions `image_url` with a data URL, the Responses API `input_image`,
 * Anthropic an `image` block with a base64 source, Gemini an `inlineData` part. Each fake
 * records the body its SDK sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "../../src/providers/model-provider.js";
import type { FakeModelServer } from "../fakes/model-fake-server.js";
import { collect, providerCases } from "./provider-harness.js";

let fake: FakeModelServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).toString("base64");
const text = "ana: @alice what does this show?\n[file shot.png, image/png, 12 B, at inbox/m1/shot.png]";

function imageRequest(model: string): ModelRequest {
  return {
    model,
    system: "You are alice.",
    messages: [{ role: "user", text, images: [{ mediaType: "image/png", base64: png }] }],
    tools: [],
  };
}

/** The user turn each API should carry, byte for byte. */
const expectedUserTurn: Record<string, unknown> = {
  openai: {
    role: "user",
    content: [
      { type: "text", text },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
    ],
  },
  "openai-responses": {
    role: "user",
    content: [
      { type: "input_text", text },
      { type: "input_image", image_url: `data:image/png;base64,${png}`, detail: "auto" },
    ],
  },
  anthropic: {
    role: "user",
    content: [
      { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
      { type: "text", text },
    ],
  },
  google: { parts: [{ text }, { inlineData: { mimeType: "image/png", data: png } }], role: "user" },
};

function userTurnOf(label: string, body: Record<string, unknown>): unknown {
  switch (label) {
    case "openai":
      return (body.messages as unknown[]).find((message) => (message as { role: string }).role === "user");
    case "openai-responses":
      return (body.input as unknown[])[0];
    case "anthropic":
      return (body.messages as unknown[])[0];
    default:
      return (body.contents as unknown[])[0];
  }
}

describe.each(providerCases)("$label: image input", (providerCase) => {
  it("sends the image in the API's own shape and gets the answer", async () => {
    fake = await providerCase.start({ steps: [{ type: "reply", text: ["An error dialog."] }] });
    const { response } = await collect(providerCase.create(fake), imageRequest(providerCase.model));
    expect(response.text).toBe("An error dialog.");
    const body = fake.requests[0]?.body as Record<string, unknown>;
    expect(JSON.stringify(userTurnOf(providerCase.label, body))).toBe(
      JSON.stringify(expectedUserTurn[providerCase.label]),
    );
  });
});

const pdf = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n%%EOF\n").toString("base64");
const pdfText = "ana: @alice summarise this\n[file report.pdf, application/pdf, 48 B, at inbox/m1/report.pdf]";

function documentRequest(model: string): ModelRequest {
  return {
    model,
    system: "You are alice.",
    messages: [
      {
        role: "user",
        text: pdfText,
        documents: [{ name: "report.pdf", mediaType: "application/pdf", base64: pdf, pages: 1 }],
      },
    ],
    tools: [],
  };
}

/** A PDF in each API's document shape, byte for byte. */
const expectedDocumentTurn: Record<string, unknown> = {
  openai: {
    role: "user",
    content: [
      { type: "text", text: pdfText },
      { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${pdf}` } },
    ],
  },
  "openai-responses": {
    role: "user",
    content: [
      { type: "input_text", text: pdfText },
      { type: "input_file", filename: "report.pdf", file_data: `data:application/pdf;base64,${pdf}` },
    ],
  },
  anthropic: {
    role: "user",
    content: [
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf } },
      { type: "text", text: pdfText },
    ],
  },
  google: { parts: [{ text: pdfText }, { inlineData: { mimeType: "application/pdf", data: pdf } }], role: "user" },
};

describe.each(providerCases)("$label: PDF as document input", (providerCase) => {
  it("sends the PDF in the API's own document shape and gets the answer", async () => {
    fake = await providerCase.start({ steps: [{ type: "reply", text: ["A quarterly report."] }] });
    const { response } = await collect(providerCase.create(fake), documentRequest(providerCase.model));
    expect(response.text).toBe("A quarterly report.");
    const body = fake.requests[0]?.body as Record<string, unknown>;
    expect(JSON.stringify(userTurnOf(providerCase.label, body))).toBe(
      JSON.stringify(expectedDocumentTurn[providerCase.label]),
    );
  });
});
