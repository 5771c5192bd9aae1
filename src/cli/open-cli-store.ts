import { resolveDatabaseUrl } from "../config/load-config.js";
import type { CliContext } from "./cli-context.js";
import { createCliLogger } from "./cli-logger.js";

/** The database of `DATABASE_URL` for a read-only command (migrated first, so every table exists). */
export async function openCliStore(context: CliContext) {
  const logger = createCliLogger(context, "warn");
  const { openStore } = await import("../storage/open-store.js");
  return openStore({ databaseUrl: resolveDatabaseUrl(context.env), logger });
}
