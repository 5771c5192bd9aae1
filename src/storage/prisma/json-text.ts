/**
 * JSON fields are stored as text. Events carry `Date`s (message times, expiry), so those are
 * written tagged and come back as `Date`s; everything else is plain JSON.
 */
const dateTag = "$date";

/** Serialise with `Date`s kept as `{ "$date": iso }`. */
export function encodeWithDates(value: unknown): string {
  return JSON.stringify(value, function replace(this: Record<string, unknown>, key: string, plain: unknown) {
    const original = this[key];
    return original instanceof Date ? { [dateTag]: original.toISOString() } : plain;
  });
}

/** The inverse of {@link encodeWithDates}. */
export function decodeWithDates(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const keys = Object.keys(value);
      const tagged = (value as Record<string, unknown>)[dateTag];
      if (keys.length === 1 && typeof tagged === "string") return new Date(tagged);
    }
    return value;
  });
}

/** Plain JSON text, or null for `undefined`. */
export function encodeOptional(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/** Plain JSON back, or `undefined` for null. */
export function decodeOptional(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}
