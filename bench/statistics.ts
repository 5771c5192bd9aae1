/** The `fraction` quantile (0.5 = median) of `values`, nearest-rank; NaN when empty. */
export function quantile(values: number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Rounded for a table: one decimal under 10, whole numbers above. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  return Math.abs(value) < 10 ? Math.round(value * 10) / 10 : Math.round(value);
}
