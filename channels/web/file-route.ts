import type { ServerResponse } from "node:http";
import type { ChatRef } from "../../src/world/channel-adapter.js";
import type { GuardedRoute } from "./guard.js";
import { queryParameter, sendText } from "./http-io.js";
import type { WebFileLink } from "./web-items.js";

/** One stored file of a message, as the page may be sent it. */
export interface WebFile {
  chat: ChatRef;
  name: string;
  mediaType: string;
  bytes: Uint8Array;
}

/** Where the route reads a message's file (the store, in src/app). */
export interface WebFileSource {
  file(messageId: string, name: string): Promise<WebFile | undefined>;
}

/** The route's path; a file is `?message=<message id>&name=<its name>`. */
export const webFilePath = "/chat/file";

/** The link the page shows for a message's file. */
export function webFileUrl(messageId: string, name: string): string {
  return `${webFilePath}?${new URLSearchParams({ message: messageId, name }).toString()}`;
}

/** Images the page may show inline; anything else is a download. */
const inlineTypes: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** A message's file as the page links it: its name, the route's address, and whether it shows inline. */
export function webFileLink(messageId: string, name: string, mediaType: string): WebFileLink {
  return { name, url: webFileUrl(messageId, name), image: inlineTypes.has(mediaType) };
}

/**
 * `GET /chat/file?message=…&name=…`: a file of a message in one of the console's web chats
 * (a tool's image or file an agent posted, an upload), to a logged-in page (`api`: 401
 * without a login). The type is the stored one (typed from the bytes at storing); images are
 * shown inline, anything else is an attachment, and nothing it serves runs: `nosniff` and a
 * sandboxing content policy. A message of another platform's chat, or of a world the console
 * does not show, is 404 like a missing one.
 */
export function webFileRoute(source: WebFileSource, worlds: readonly string[]): GuardedRoute {
  return {
    path: webFilePath,
    kind: "api",
    methods: ["GET"],
    async handle(request, response) {
      const messageId = queryParameter(request, "message");
      const name = queryParameter(request, "name");
      if (messageId === undefined || name === undefined || messageId === "" || name === "") {
        sendText(response, 400, "bad request: give message and name");
        return;
      }
      const file = await source.file(messageId, name);
      if (file === undefined || file.chat.platform !== "web" || !worlds.includes(file.chat.workspace ?? "")) {
        sendText(response, 404, "no such file");
        return;
      }
      sendFile(response, file);
    },
  };
}

function sendFile(response: ServerResponse, file: WebFile): void {
  const disposition = inlineTypes.has(file.mediaType) ? "inline" : "attachment";
  response.writeHead(200, {
    "content-type": file.mediaType,
    "content-length": String(file.bytes.length),
    "content-disposition": `${disposition}; filename*=UTF-8''${encodeURIComponent(file.name)}`,
    "content-security-policy": "default-src 'none'; sandbox",
    "x-content-type-options": "nosniff",
    "cache-control": "private, max-age=3600",
    "referrer-policy": "no-referrer",
  });
  response.end(Buffer.from(file.bytes));
}
