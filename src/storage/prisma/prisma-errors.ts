import { StorageError } from "../../errors/roundtable-error.js";
/**
 * Prisma errors, recognised by their stable codes. The SQLite and PostgreSQL clients each
 * bring their own error classes, so `instanceof` would miss one of them.
 */
function prismaCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^P\d{4}$/.test(code) ? code : undefined;
}

/**
 * A unique constraint refused the write: P2002, or P2010 (a raw query) whose driver says so, or
 * the driver adapter's own error (a statement sent around Prisma's client: `SqliteRawSql`).
 */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof Error && error.name === "DriverAdapterError") {
    return (error as { cause?: { kind?: unknown } }).cause?.kind === "UniqueConstraintViolation";
  }
  const code = prismaCode(error);
  if (code === "P2002") return true;
  if (code !== "P2010") return false;
  const meta = (error as { meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } }).meta;
  return meta?.driverAdapterError?.cause?.kind === "UniqueConstraintViolation";
}

/** A unique violation becomes a `storage.conflict`; anything else passes through. */
export function conflictOr(error: unknown, message: string): unknown {
  return isUniqueViolation(error) ? new StorageError("storage.conflict", message, { cause: error }) : error;
}

/** A row a write needs is not there. */
export function missing(what: string, id: string): StorageError {
  return new StorageError("storage.failed", `${what} ${id} does not exist`);
}
