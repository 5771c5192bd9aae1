/** Ends every exhaustive `switch` over a discriminated union. */
export function assertNever(value: never, what = "value"): never {
  // Programming error by construction: the compiler proves every case is handled.
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
