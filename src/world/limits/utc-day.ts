/** The UTC day of a moment, `YYYY-MM-DD`: usage is stored and limited per such day. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The next 00:00 UTC after `at`: when a day's budget resets. */
export function nextUtcMidnight(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** `HH:MM:SS UTC` (or `HH:MM UTC` when `seconds` is false). */
export function utcClock(at: Date, seconds = true): string {
  return `${at.toISOString().slice(11, seconds ? 19 : 16)} UTC`;
}

/** `3 hours`, `25 minutes`, `40 seconds`: a rough span for notices. */
export function roughSpan(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 90) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} minutes`;
  return `${Math.round(minutes / 60)} hours`;
}
