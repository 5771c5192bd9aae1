/** What a redacted secret becomes in a log line. */
export const redactedText = "[redacted]";

/**
 * Shapes of secrets found inside free text (error messages, URLs, stack traces), where
 * path-based redaction cannot see them: Telegram bot tokens (grammY's `HttpError` carries
 * the Bot API URL `…/bot<token>/getMe`), Slack tokens, `Bearer` values, and the password of a
 * URL with credentials (`postgresql://user:password@host`).
 */
const secretShapes: readonly [RegExp, string][] = [
  [/(?<![0-9])\d{5,}:[A-Za-z0-9_-]{30,}/g, redactedText],
  [/\bxox[abposre]-[A-Za-z0-9-]{8,}/g, redactedText],
  [/\bxapp-[A-Za-z0-9-]{8,}/g, redactedText],
  [/\b(Bearer|Bot)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${redactedText}`],
  [/(\/\/[^\s:/@"'\\]+:)[^\s@/"'\\]+@/g, `$1${redactedText}@`],
];

/** Environment variables whose values are secrets by their names. */
const secretNamePattern = /TOKEN|SECRET|KEY|PASSWORD|CREDENTIAL/i;

/** The values of secret-looking environment variables (long enough not to be a word). */
export function environmentSecrets(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => secretNamePattern.test(name) && value !== undefined && value.length >= 8)
    .map(([, value]) => value as string);
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
