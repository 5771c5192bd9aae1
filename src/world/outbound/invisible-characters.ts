/**
 * Control, format and separator characters (Unicode Cc except newline and tab, Cf such as
 * U+202E RIGHT-TO-LEFT OVERRIDE and U+200B ZERO WIDTH SPACE, Zl, Zp), and the characters
 * that draw as nothing although Unicode files them as letters or marks: the Hangul fillers
 * (U+115F, U+1160, U+3164, U+FFA0), variation selectors (U+FE00–FE0F, U+E0100–E01EF), the
 * combining grapheme joiner U+034F, the braille blank U+2800 and the Khmer inherent vowels
 * U+17B4/U+17B5. They change how text looks, or vanish, without changing what runs. Every
 * approval card shows them as escapes.
 */
const invisiblePattern =
  /(?![\n\t])(?:[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0\u2800]|\u034F|\u17B4|\u17B5|[\uFE00-\uFE0F]|[\u{E0100}-\u{E01EF}])/gu;

/** The line a card adds when its arguments hold such characters. */
export const invisibleCharactersNotice =
  "⚠ The arguments contain invisible characters, shown as \\u escapes: what runs is what is shown.";

/** Whether `text` holds a character {@link revealInvisible} would escape. */
export function hasInvisibleCharacters(text: string): boolean {
  invisiblePattern.lastIndex = 0;
  const found = invisiblePattern.test(text);
  invisiblePattern.lastIndex = 0;
  return found;
}

/**
 * `text` with each invisible character written as `\uXXXX` (lower-case hex, one escape per
 * UTF-16 unit, so that inside a JSON string the escape is valid JSON for the same value).
 */
export function revealInvisible(text: string): string {
  return text.replace(invisiblePattern, (character) => {
    let escaped = "";
    for (let index = 0; index < character.length; index += 1) {
      escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, "0")}`;
    }
    return escaped;
  });
}
