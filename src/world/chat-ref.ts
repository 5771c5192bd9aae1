/** The platforms a chat can live on. `console` is the terminal, `web` the browser console. */
export type Platform = "slack" | "telegram" | "discord" | "console" | "web";

export const platforms: readonly Platform[] = ["slack", "telegram", "discord", "console", "web"];

/**
 * Where a conversation happens. A Slack thread, a Telegram forum topic and a Discord thread
 * are each their own chat (`thread` set).
 */
export interface ChatRef {
  platform: Platform;
  workspace?: string;
  channel: string;
  thread?: string;
}

/** `%` and `:` are escaped so that any id round-trips through the key. */
function escapePart(part: string): string {
  return part.replaceAll("%", "%25").replaceAll(":", "%3A");
}

function unescapePart(part: string): string {
  return part.replaceAll("%3A", ":").replaceAll("%25", "%");
}

/** The stable string form `platform:workspace:channel:thread` (empty parts stay empty). */
export function chatKey(chat: ChatRef): string {
  return [chat.platform, chat.workspace ?? "", chat.channel, chat.thread ?? ""].map(escapePart).join(":");
}

/** Inverse of {@link chatKey}; throws on a string that is not a chat key. */
export function parseChatKey(key: string): ChatRef {
  const parts = key.split(":");
  // Programming errors: every key parsed was made by chatKey (stored, or in a job payload).
  if (parts.length !== 4) throw new Error(`not a chat key: ${key}`);
  const [platform, workspace, channel, thread] = parts.map(unescapePart) as [string, string, string, string];
  if (!platforms.includes(platform as Platform)) throw new Error(`unknown platform in chat key: ${key}`);
  if (channel === "") throw new Error(`chat key without channel: ${key}`);
  const chat: ChatRef = { platform: platform as Platform, channel };
  if (workspace !== "") chat.workspace = workspace;
  if (thread !== "") chat.thread = thread;
  return chat;
}
