/** The fake Slack's reading of a Web API request body, as Slack reads it: form or JSON parameters, and an upload's file bytes. */

const jsonParams = new Set(["blocks", "attachments", "files", "chunks", "metadata"]);

export function parseParams(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes("application/json")) {
    try {
      return raw === "" ? {} : (JSON.parse(raw) as Record<string, unknown>);
    } catch {
      return {};
    }
  }
  const params: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    if (jsonParams.has(key)) {
      try {
        params[key] = JSON.parse(value);
        continue;
      } catch {
        // kept as text: the method answers invalid_arguments
      }
    }
    params[key] = value;
  }
  return params;
}

/** The file's bytes from an upload: the body itself, or the file part of a multipart form. */
export function uploadedContent(raw: string, contentType: string): string {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!contentType.startsWith("multipart/form-data") || !boundary) return raw;
  const marker = `--${boundary[1] ?? boundary[2]}`;
  for (const part of raw.split(marker)) {
    const headerEnd = part.indexOf("\r\n\r\n");
    if (headerEnd === -1 || !/filename=/.test(part.slice(0, headerEnd))) continue;
    return part.slice(headerEnd + 4).replace(/\r\n$/, "");
  }
  return raw;
}

/** The bytes of an upload: the body itself, or the file part of a multipart body. */
export function uploadedBytes(body: Buffer, contentType: string): Uint8Array {
  if (!contentType.startsWith("multipart/form-data")) return new Uint8Array(body);
  return new Uint8Array(Buffer.from(uploadedContent(body.toString("latin1"), contentType), "latin1"));
}
