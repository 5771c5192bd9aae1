/** Text made safe for HTML content and attribute values. */
function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** Tagged template whose interpolations are escaped, except values made by {@link raw}. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): RawHtml {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += renderValue(value) + (strings[index + 1] ?? "");
  });
  return new RawHtml(out);
}

/** Markup that is already safe. */
export class RawHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

function raw(markup: string): RawHtml {
  return new RawHtml(markup);
}

function renderValue(value: unknown): string {
  if (value instanceof RawHtml) return value.value;
  if (Array.isArray(value)) return value.map(renderValue).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

/** The whole document: the shared stylesheet, no external resource. */
export function layout(title: string, body: RawHtml, script?: string): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} \u00b7 Roundtable</title>
<link rel="stylesheet" href="/assets/console.css">
${script === undefined ? "" : raw(`<script type="module" src="${escapeHtml(script)}"></script>`)}
</head>
<body>
${body}
</body>
</html>
`.value;
}

/** Headers every page of the console carries: no framing, no foreign scripts, no sniffing. */
export const securityHeaders: Record<string, string> = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' https: http: data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};
