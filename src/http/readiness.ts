/** One thing `/readyz` looks at (the database, a channel's connection). */
export interface ReadinessCheck {
  ok: boolean;
  /** Why not, when not ok (never a secret). */
  detail?: string;
}

/** What the service reports to `/readyz`: ready only when every check is ok. */
export interface ReadinessReport {
  ok: boolean;
  checks: Record<string, ReadinessCheck>;
}

/** Asked on every `/readyz` request; should answer quickly (a ping, a flag). */
export type ReadinessProbe = () => Promise<ReadinessReport>;

/** Runs named checks side by side; `ok` when all are. A check that throws counts as not ok with its message. */
export async function combineReadinessChecks(
  checks: Record<string, () => Promise<ReadinessCheck> | ReadinessCheck>,
): Promise<ReadinessReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, ReadinessCheck]> => {
      try {
        return [name, await check()];
      } catch (error) {
        return [name, { ok: false, detail: error instanceof Error ? error.message : String(error) }];
      }
    }),
  );
  return { ok: entries.every(([, check]) => check.ok), checks: Object.fromEntries(entries) };
}
