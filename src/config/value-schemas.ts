/*
 * The value kinds every part of the configuration uses: durations, numbers and booleans that may
 * come as `${VAR}` text, names, and strings where empty means unset.
 */
import { z } from "zod";
import { parseDuration } from "./duration.js";

/** A duration such as `45s`, `30m`, `2h` (or a number of seconds), as milliseconds. */
export const durationSchema = z.union([z.string(), z.number()]).transform((value, context) => {
  const ms = parseDuration(value);
  if (ms === undefined) {
    context.addIssue({
      code: "custom",
      message: `expected a duration such as 45s, 30m or 2h, got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  }
  return ms;
});

/**
 * A number that may also be written as text: `${VAR}` values are text, so `turnLimit: ${TURNS:-6}`
 * reads as 6. Anything that is not a plain number stays as it is (and fails as before).
 */
export function numeric<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    (value) => (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value),
    schema,
  );
}

/** A boolean that may also be written as the text `true` or `false` (from `${VAR}`). */
export function booleanText<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === "true" ? true : value === "false" ? false : value), schema);
}

export const nameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "expected a name of letters, digits, '-' and '_', starting with a letter");

export const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === "" ? undefined : value));
