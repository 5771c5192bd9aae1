/**
 * Markdown as Slack `mrkdwn`: `&`, `<`, `>` escaped everywhere (code too: Slack reads its own
 * markup inside code spans), `**bold**` → `*bold*`, `*italic*`/`_italic_` → `_italic_`,
 * `~~strike~~` → `~strike~`, `[text](url)` → `<url|text>`, headings as bold lines, `-`/`*`
 * bullets as `•`, fenced code blocks kept (their language dropped), block quotes kept.
 */
export function markdownToMrkdwn(markdown: string): string {
  const out: string[] = [];
  let inFence = false;
  for (const line of markdown.replaceAll("\r\n", "\n").split("\n")) {
    const fence = /^\s*```/.exec(line);
    if (fence) {
      out.push("```");
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      out.push(escapeMrkdwn(line));
      continue;
    }
    out.push(convertLine(line));
  }
  if (inFence) out.push("```");
  return out.join("\n");
}

/** The three characters Slack wants escaped in text. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function convertLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return `*${stripBold(convertInline(heading[1] ?? ""))}*`;
  const quote = /^(\s*)>\s?(.*)$/.exec(line);
  if (quote) return `${quote[1]}> ${convertInline(quote[2] ?? "")}`;
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1]}• ${convertInline(bullet[2] ?? "")}`;
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return "───";
  return convertInline(line);
}

/** Bold inside a heading would close the heading's own bold. */
function stripBold(text: string): string {
  return text.replaceAll(/\*([^*]+)\*/g, "$1");
}

const bold = "\uE000";

/** Inline markup of one line; code spans are escaped but otherwise left alone. */
function convertInline(line: string): string {
  const pieces = line.split(/(`[^`]+`)/);
  return pieces
    .map((piece) =>
      piece.startsWith("`") && piece.endsWith("`") && piece.length > 1 ? escapeMrkdwn(piece) : convertText(piece),
    )
    .join("");
}

function convertText(text: string): string {
  const links: string[] = [];
  // Links first, so their URLs are not read as emphasis; kept aside until the end.
  let result = text.replaceAll(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, (_, label: string, url: string) => {
    links.push(
      `<${url.replaceAll("|", "%7C").replaceAll(">", "%3E").replaceAll("<", "%3C")}|${escapeMrkdwn(label).replaceAll("|", "¦")}>`,
    );
    return `\uE001${links.length - 1}\uE001`;
  });
  result = escapeMrkdwn(result);
  result = result
    .replaceAll(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, `${bold}$1${bold}`)
    .replaceAll(/__(?=\S)(.+?)(?<=\S)__/g, `${bold}$1${bold}`)
    .replaceAll(/(^|[^\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?!\w)/g, "$1_$2_")
    .replaceAll(/~~(?=\S)(.+?)(?<=\S)~~/g, "~$1~")
    .replaceAll(bold, "*");
  return result.replaceAll(/\uE001(\d+)\uE001/g, (_, index: string) => links[Number(index)] ?? "");
}
