import { describe, expect, it } from "vitest";
import { hasInvisibleCharacters, revealInvisible } from "./invisible-characters.js";

describe("revealInvisible", () => {
  it("escapes Cc (but newline and tab), Cf, Zl and Zp; leaves visible text alone", () => {
    const text = "rm -rf /tmp/\u202Egnp.sh\u200B\r\u0007\u2028\u2029\n\tok é 漢";
    expect(revealInvisible(text)).toBe("rm -rf /tmp/\\u202egnp.sh\\u200b\\u000d\\u0007\\u2028\\u2029\n\tok é 漢");
    expect(hasInvisibleCharacters(text)).toBe(true);
    expect(hasInvisibleCharacters("plain\ntext\t")).toBe(false);
  });

  it("writes an astral format character as its two UTF-16 escapes, which JSON reads back as the same value", () => {
    const json = JSON.stringify({ tag: "a\u{E0041}b" });
    const shown = revealInvisible(json);
    expect(shown).toBe('{"tag":"a\\udb40\\udc41b"}');
    expect(JSON.parse(shown)).toEqual(JSON.parse(json));
  });

  it("escapes what draws as nothing though Unicode calls it a letter or mark", () => {
    const blanks = [0x115f, 0x1160, 0x3164, 0xffa0, 0xfe00, 0xfe0f, 0x034f, 0x2800, 0x17b4, 0x17b5];
    for (const code of blanks) {
      const character = String.fromCodePoint(code);
      expect(revealInvisible(`rm${character}x`)).toBe(`rm\\u${code.toString(16).padStart(4, "0")}x`);
      expect(hasInvisibleCharacters(character)).toBe(true);
    }
    expect(revealInvisible(`a${String.fromCodePoint(0xe0100)}b${String.fromCodePoint(0xe01ef)}`)).toBe(
      "a\\udb40\\udd00b\\udb40\\uddef",
    );
  });
});
