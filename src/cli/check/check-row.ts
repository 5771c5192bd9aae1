import { errorMessage } from "../../errors/roundtable-error.js";

/**
 * `ok`, `FAIL` (the command exits non-zero), `warn` (works, but open to abuse; the exit code is
 * unchanged) or `skip` (not checked, with the reason).
 */
export type CheckStatus = "ok" | "FAIL" | "warn" | "skip";

/** One line of the `roundtable check` table. */
export interface CheckRow {
  name: string;
  status: CheckStatus;
  detail: string;
}

/** What a check returns when it passes: the detail text, or a skip with its reason. */
export type CheckOutcome = string | { status: "skip"; detail: string };

/** How long one remote check may take. */
export const checkTimeoutMs = 20_000;

/** Runs one check: passes with its detail, fails with a short cause, or fails after `timeoutMs`. */
export async function runCheck(
  name: string,
  check: () => Promise<CheckOutcome>,
  timeoutMs: number = checkTimeoutMs,
): Promise<CheckRow> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)}s`)), timeoutMs);
    timer.unref();
  });
  try {
    const outcome = await Promise.race([check(), timeout]);
    return typeof outcome === "string" ? { name, status: "ok", detail: outcome } : { name, ...outcome };
  } catch (error) {
    return { name, status: "FAIL", detail: describeFailure(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** The error's message with its causes (`Connection error. (connect ECONNREFUSED …)`), on one short line. */
export function describeFailure(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const message = errorMessage(current).split("\n")[0]?.trim() ?? "";
    if (message !== "" && !parts.some((part) => part.includes(message))) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  const text =
    parts.length === 0
      ? "failed"
      : parts[0] +
        parts
          .slice(1)
          .map((part) => ` (${part})`)
          .join("");
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
