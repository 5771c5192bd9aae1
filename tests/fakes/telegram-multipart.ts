import type { Json } from "./telegram-messages.js";

/**
 * A multipart body (grammY sends files this way) as params: text fields as JSON where they are
 * JSON (`reply_parameters`), files as `{ file_name, content }`.
 */
export async function multipartParams(raw: Buffer, contentType: string): Promise<Json> {
  const form = await new Response(new Uint8Array(raw), { headers: { "content-type": contentType } }).formData();
  const params: Json = {};
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") {
      try {
        params[name] = /^[[{"]|^-?\d/.test(value) ? JSON.parse(value) : value;
      } catch {
        params[name] = value;
      }
    } else {
      params[name] = {
        file_name: value.name,
        content: await value.text(),
        bytes: new Uint8Array(await value.arrayBuffer()),
      };
    }
  }
  // Files may be sent as parts of their own, referred to as `attach://<part name>`.
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === "string" && value.startsWith("attach://")) params[name] = params[value.slice(9)];
  }
  return params;
}
