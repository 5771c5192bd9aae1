import type { ServerResponse } from "node:http";
import { type Json, type Outcome, ok, refuse } from "./telegram-messages.js";

/** What a file gets in an update's `photo`/`document`/`voice`/`audio`. */
export interface FakeFileRef {
  file_id: string;
  file_unique_id: string;
  file_size: number;
}

/**
 * Files people sent, as the Bot API keeps them: `getFile` gives a file's `file_path` (refusing
 * files over 20 MB, as the cloud Bot API does), and `/file/bot<token>/<file_path>` its bytes.
 */
export class FakeTelegramFiles {
  private readonly files = new Map<string, { bytes: Uint8Array; path: string; uniqueId: string }>();
  private nextFile = 1;
  /** The paths fetched from the file endpoint, in order. */
  readonly downloads: string[] = [];

  add(bytes: Uint8Array, folder = "documents"): FakeFileRef {
    const number = this.nextFile++;
    const fileId = `AgAC-file-${number}`;
    const uniqueId = `AQAD${number}`;
    this.files.set(fileId, { bytes, path: `${folder}/file_${number}`, uniqueId });
    return { file_id: fileId, file_unique_id: uniqueId, file_size: bytes.length };
  }

  getFile(params: Json): Outcome {
    const file = typeof params.file_id === "string" ? this.files.get(params.file_id) : undefined;
    if (!file) return refuse(400, "Bad Request: invalid file_id");
    if (file.bytes.length > 20 * 1024 * 1024) return refuse(400, "Bad Request: file is too big");
    return ok({
      file_id: params.file_id,
      file_unique_id: file.uniqueId,
      file_size: file.bytes.length,
      file_path: file.path,
    });
  }

  /** Answers a GET of the file endpoint (true), or leaves the request alone (false). */
  serve(pathname: string, isBotToken: (token: string) => boolean, response: ServerResponse): boolean {
    const match = /^\/file\/bot([^/]+)\/(.+)$/.exec(pathname);
    if (!match) return false;
    const [, token = "", filePath = ""] = match;
    const file = [...this.files.values()].find((entry) => entry.path === filePath);
    if (!isBotToken(token) || !file) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify(refuse(404, "Not Found")));
      return true;
    }
    this.downloads.push(filePath);
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.bytes.length });
    response.end(file.bytes);
    return true;
  }

  /** A message's `photo` (a thumbnail and the full size), `document` and `voice` (an Ogg Opus note) fields. */
  fields(input: { photo?: Uint8Array; document?: { bytes: Uint8Array; name: string }; voice?: Uint8Array }): Json {
    const fields: Json = {};
    if (input.photo !== undefined) {
      fields.photo = [
        { ...this.add(input.photo.slice(0, 8), "photos"), width: 90, height: 60 },
        { ...this.add(input.photo, "photos"), width: 1280, height: 853 },
      ];
    }
    if (input.document !== undefined)
      fields.document = { ...this.add(input.document.bytes), file_name: input.document.name };
    if (input.voice !== undefined)
      fields.voice = { ...this.add(input.voice, "voice"), duration: 3, mime_type: "audio/ogg" };
    return fields;
  }
}
