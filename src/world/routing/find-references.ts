import { scanMentions } from "./scan-mentions.js";
import { uniqueNames } from "./unique-names.js";

/**
 * Every name a message mentions anywhere (without `@`, lowercased, first mention first, each
 * once), addresses included; mentions in code, URLs and e-mail addresses do not count. A
 * quoted line's mentions do: the name is in the message.
 */
export function findReferences(text: string): string[] {
  return uniqueNames(scanMentions(text).mentions.map((mention) => mention.name));
}
