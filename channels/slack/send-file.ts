import type { webApi } from "@slack/bolt";
import { PlatformApiError } from "../../src/errors/roundtable-error.js";
import type { Author, ChatRef, OutboundFile, SendPartOptions } from "../../src/world/channel-adapter.js";
import { toPlatformError } from "./api.js";
import { type WebApiRetryOptions, withWebApiRetries } from "./web-api-retries.js";

type WebClient = webApi.WebClient;

/**
 * Post one file into a Slack chat (its thread when it has one) the way `files.uploadV2` does:
 * `files.getUploadURLExternal`, the bytes POSTed to the upload URL, then
 * `files.completeUploadExternal` with the channel, thread and caption (`initial_comment`).
 * Needs the `files:write` scope. Slack shows an upload under the app, not a custom name, so an
 * agent's name leads the caption in bold. Returns the file's id (`F…`): the completion answers
 * with the file, not with the message that shares it; `files.delete` removes it.
 *
 * Slack cannot carry a post key on an upload, so `options.key` is not used: a post whose id was
 * not stored before a crash may be posted again (the window the architecture page names).
 * `options.replyTo` is not used either: a file goes into the chat's thread, or the channel.
 */
export async function sendSlackFile(
  client: WebClient,
  chat: ChatRef,
  author: Author,
  file: OutboundFile,
  _options: SendPartOptions = {},
  /** The adapter's retry policy (without: one try). */
  retries?: WebApiRetryOptions,
): Promise<string> {
  const comment = captionFor(author, file.caption);
  const upload = async (): Promise<unknown> => {
    try {
      return await client.files.uploadV2({
        channel_id: chat.channel,
        ...(chat.thread === undefined ? {} : { thread_ts: chat.thread }),
        file: Buffer.from(file.bytes),
        filename: file.name,
        title: file.name,
        ...(comment === undefined ? {} : { initial_comment: comment }),
      } as Parameters<WebClient["files"]["uploadV2"]>[0]);
    } catch (error) {
      throw toPlatformError(error, "files.uploadV2");
    }
  };
  // A 429 is waited out here; an upload of unknown outcome is not sent again (it may show twice).
  const result =
    retries === undefined ? await upload() : await withWebApiRetries("files.uploadV2", upload, "never", retries);
  const id = fileIdOf(result);
  if (id === undefined)
    throw new PlatformApiError(`slack files.uploadV2 answered without a file id for ${file.name}`, {
      method: "files.uploadV2",
    });
  return id;
}

/** The upload's comment: the caption, led by an agent's name (Slack posts an upload as the app). */
function captionFor(author: Author, caption: string | undefined): string | undefined {
  if (author.kind !== "agent") return caption;
  const name = `*${author.displayName ?? author.name}*`;
  return caption === undefined || caption === "" ? name : `${name}: ${caption}`;
}

/** `uploadV2` answers `{ files: [ { files: [ { id } ] } ] }`: one completion per upload. */
function fileIdOf(result: unknown): string | undefined {
  const completions = (result as { files?: { files?: { id?: unknown }[] }[] } | undefined)?.files ?? [];
  const id = completions[0]?.files?.[0]?.id;
  return typeof id === "string" ? id : undefined;
}
