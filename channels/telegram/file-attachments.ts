import type { Api } from "grammy";
import type { InboundAttachment } from "../../src/world/channel-adapter.js";
import { toPlatformError } from "./api.js";
import type { TelegramFileRef } from "./parse.js";

/** Telegram's own Bot API server, when `TELEGRAM_API_ROOT` names none. */
const defaultApiRoot = "https://api.telegram.org";

/**
 * A message's files as the world downloads them: `getFile` gives the file's path, and the bytes
 * come from `<api root>/file/bot<token>/<path>`, the only host they are taken from.
 */
export function telegramAttachments(
  api: Api,
  token: string,
  apiRoot: string | undefined,
  files: readonly TelegramFileRef[],
): InboundAttachment[] {
  const root = (apiRoot?.replace(/\/+$/, "") || undefined) ?? defaultApiRoot;
  return files.map((file) => ({
    name: file.name,
    ...(file.size === undefined ? {} : { declaredSize: file.size }),
    host: new URL(root).host,
    locate: async () => {
      let path: string | undefined;
      try {
        path = (await api.getFile(file.fileId)).file_path;
      } catch (error) {
        throw toPlatformError(error, "getFile");
      }
      if (path === undefined) throw toPlatformError(new Error("getFile gave no file_path"), "getFile");
      return { url: `${root}/file/bot${token}/${path}` };
    },
  }));
}
