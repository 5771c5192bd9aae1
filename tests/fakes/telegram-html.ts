/**
 * Telegram's HTML parse mode, as strict as the real server or stricter: only the documented
 * tags, every tag closed in order, `<` and `&` only as part of a tag or an entity. What it
 * returns is what a Telegram client would show: plain text plus entities (UTF-16 offsets).
 */

export interface FakeEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
}

export type HtmlParseResult = { ok: true; text: string; entities: FakeEntity[] } | { ok: false; error: string };

const tagTypes: Record<string, string> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
  code: "code",
  pre: "pre",
  a: "text_link",
  blockquote: "blockquote",
  "tg-spoiler": "spoiler",
  span: "spoiler",
  "tg-emoji": "custom_emoji",
};

const tagPattern = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?)*)\s*>/;
const attributePattern = /([a-zA-Z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;
const entityPattern = /^&(lt|gt|amp|quot|#\d{1,7}|#x[0-9a-fA-F]{1,6});/;

function decodeEntity(name: string): string {
  if (name === "lt") return "<";
  if (name === "gt") return ">";
  if (name === "amp") return "&";
  if (name === "quot") return '"';
  const code = name.startsWith("#x") ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
  return String.fromCodePoint(code);
}

function attributesOf(source: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of source.matchAll(attributePattern)) {
    const raw = match[2] ?? match[3] ?? match[4] ?? "";
    attributes.set(
      (match[1] ?? "").toLowerCase(),
      raw.replaceAll(/&(lt|gt|amp|quot);/g, (_, name: string) => decodeEntity(name)),
    );
  }
  return attributes;
}

export function parseTelegramHtml(html: string): HtmlParseResult {
  let text = "";
  const entities: FakeEntity[] = [];
  const open: { name: string; entity: FakeEntity }[] = [];
  let index = 0;
  const fail = (what: string): HtmlParseResult => ({
    ok: false,
    error: `Bad Request: can't parse entities: ${what} at byte offset ${Buffer.byteLength(html.slice(0, index))}`,
  });
  while (index < html.length) {
    const char = html[index] ?? "";
    if (char === "<") {
      const match = tagPattern.exec(html.slice(index));
      if (!match) return fail("Unsupported start tag or unescaped '<'");
      const closing = match[1] === "/";
      const name = (match[2] ?? "").toLowerCase();
      const type = tagTypes[name];
      if (!type) return fail(`Unsupported start tag "${name}"`);
      if (closing) {
        const top = open.pop();
        if (!top || top.name !== name) return fail(`Unmatched end tag "${name}"`);
        top.entity.length = text.length - top.entity.offset;
        // <pre><code class="language-x"> is one pre entity with a language.
        const parent = open.at(-1);
        if (name === "code" && parent?.name === "pre") {
          if (top.entity.language !== undefined) parent.entity.language = top.entity.language;
        } else if (top.entity.length > 0) {
          entities.push(top.entity);
        }
      } else {
        const attributes = attributesOf(match[3] ?? "");
        const entity: FakeEntity = { type, offset: text.length, length: 0 };
        if (name === "a") {
          const href = attributes.get("href");
          if (href === undefined) return fail("Missing href in <a>");
          entity.url = href;
        }
        if (name === "span" && attributes.get("class") !== "tg-spoiler")
          return fail('Unsupported <span> without class "tg-spoiler"');
        if (name === "code") {
          const language = /^language-(.+)$/.exec(attributes.get("class") ?? "");
          if (language) entity.language = language[1] ?? "";
        }
        open.push({ name, entity });
      }
      index += match[0].length;
      continue;
    }
    if (char === "&") {
      const match = entityPattern.exec(html.slice(index));
      if (!match) return fail("Character '&' is reserved and must be escaped with \"&amp;\"");
      text += decodeEntity(match[1] ?? "");
      index += match[0].length;
      continue;
    }
    text += char;
    index += 1;
  }
  const unclosed = open.at(-1);
  if (unclosed) return fail(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  return { ok: true, text, entities: entities.sort((left, right) => left.offset - right.offset) };
}
