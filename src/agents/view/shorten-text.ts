import { estimateTextTokens } from "./estimate-tokens.js";

/**
 * The text cut in the middle to about `maxTokens` (head two thirds, tail one third), the cut
 * said in place: the start of a long output usually says what it is, its end how it ended.
 * Returns the text unchanged when it already fits.
 */
export function shortenMiddle(text: string, maxTokens: number): string {
  if (estimateTextTokens(text) <= maxTokens) return text;
  const marker = (cut: number) => `\n[… ${cut} characters cut to fit the context budget …]\n`;
  const budgetBytes = Math.max(0, maxTokens * 4 - Buffer.byteLength(marker(text.length), "utf8"));
  const characters = Array.from(text);
  // Characters, not bytes, are kept; shrink until the UTF-8 size fits.
  let keep = Math.min(characters.length, budgetBytes);
  for (;;) {
    const head = characters.slice(0, Math.ceil((keep * 2) / 3)).join("");
    const tail =
      keep - Math.ceil((keep * 2) / 3) > 0
        ? characters.slice(characters.length - (keep - Math.ceil((keep * 2) / 3))).join("")
        : "";
    const shortened = `${head}${marker(characters.length - keep)}${tail}`;
    if (estimateTextTokens(shortened) <= maxTokens || keep === 0) return shortened;
    keep = Math.floor(keep * 0.9);
  }
}
