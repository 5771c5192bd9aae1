import { scanMentions } from "./scan-mentions.js";
import { uniqueNames } from "./unique-names.js";

/**
 * The names a message addresses (without `@`, lowercased), in order of first mention, each
 * once: the mentions at the start of a line, with the mentions that follow them there
 * (`@alice @bob …`, `@alice, @bob: …`). See {@link scanMentions} for the exact rules.
 */
export function parseAddresses(text: string): string[] {
  return uniqueNames(scanMentions(text).runs.flatMap((run) => run.mentions.map((mention) => mention.name)));
}
