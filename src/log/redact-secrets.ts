/** What a redacted secret becomes in a log line. */
const redactedText = "[redacted]";

/**
 * Shapes of secrets found inside free text (error messages, URLs, stack traces, tool
 * arguments), where path-based redaction cannot see them: Telegram bot tokens (grammY's
 * `HttpError` carries the Bot API URL `…/bot<token>/getMe`), Slack tokens, OpenAI and
 * Anthropic keys (`sk-…`), GitHub tokens (`ghp_…`, `github_pat_…`), Google API keys
 * (`AIza…`), `Bearer` values, and the password of a URL with credentials
 * (`postgresql://user:password@host`).
 */
const secretShapes: readonly [RegExp, string][] = [
  [/(?<![0-9])\d{5,}:[A-Za-z0-9_-]{30,}/g, redactedText],
  [/\bxox[abposre]-[A-Za-z0-9-]{8,}/g, redactedText],
  [/\bxapp-[A-Za-z0-9-]{8,}/g, redactedText],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, redactedText],
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, redactedText],
  [/\bAIza[A-Za-z0-9_-]{30,}/g, redactedText],
  [/\b(Bearer|Bot)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${redactedText}`],
  [/(\/\/[^\s:/@"'\\]+:)[^\s@/"'\\]+@/g, `$1${redactedText}@`],
];

/** Environment variables whose values are secrets by their names. */
const secretNamePattern = /TOKEN|SECRET|KEY|PASSWORD|CREDENTIAL/i;

/** Variables holding `name=value,…` header lists (`OTEL_EXPORTER_OTLP_HEADERS`): every value is a secret. */
const headerListNamePattern = /HEADERS$/i;

/**
 * The values of secret-looking environment variables (long enough not to be a word), and each
 * value of a header list such as `OTEL_EXPORTER_OTLP_HEADERS` (`x-api-key=…,authorization=…`),
 * as written and percent-decoded.
 */
export function environmentSecrets(env: Record<string, string | undefined>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (secretNamePattern.test(name)) secrets.push(value);
    if (headerListNamePattern.test(name)) secrets.push(value, ...headerListValues(value));
  }
  return secrets.filter((secret) => secret.length >= 8);
}

function headerListValues(list: string): string[] {
  return list.split(",").flatMap((pair) => {
    const value = pair.slice(pair.indexOf("=") + 1).trim();
    if (!pair.includes("=") || value === "") return [];
    try {
      return [value, decodeURIComponent(value)];
    } catch {
      return [value];
    }
  });
}

/**
 * The secrets in a command line: the value of every option named like a secret
 * (`--api-token VALUE`, `--api-token=VALUE`, `-token VALUE`).
 */
export function argumentSecrets(args: readonly string[]): string[] {
  const secrets: string[] = [];
  args.forEach((argument, index) => {
    const option = /^--?([A-Za-z0-9_-]+)(?:=(.*))?$/s.exec(argument);
    if (!option || !secretNamePattern.test(option[1] ?? "")) return;
    const value = option[2] ?? args[index + 1];
    if (value !== undefined) secrets.push(value);
  });
  return secrets.filter((secret) => secret.length >= 8);
}

/**
 * A function that takes every known secret and every secret-shaped string out of a text. Used
 * on every log line just before it is written, so a platform error logged anywhere is
 * redacted the same way.
 */
export function secretRedactor(secrets: Iterable<string>): (text: string) => string {
  const exact = [...new Set([...secrets].filter((secret) => secret.length >= 8))]
    // JSON lines carry secrets escaped; both forms go.
    .flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)])
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let result = text;
    for (const secret of exact) if (result.includes(secret)) result = result.replaceAll(secret, redactedText);
    for (const [shape, replacement] of secretShapes) result = result.replace(shape, replacement);
    return result;
  };
}
