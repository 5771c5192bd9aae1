import { describe, expect, it } from "vitest";
import { StorageError } from "./roundtable-error.js";
import { isDatabaseUnreachable } from "./database-unreachable.js";

describe("isDatabaseUnreachable", () => {
  it("is true for a refused or cut connection and a server starting or shutting down, through causes", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    expect(isDatabaseUnreachable(new StorageError("storage.failed", "cannot connect", { cause: refused }))).toBe(true);
    expect(isDatabaseUnreachable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(
      isDatabaseUnreachable(Object.assign(new Error("the database system is starting up"), { code: "57P03" })),
    ).toBe(true);
    expect(isDatabaseUnreachable(new AggregateError([refused], "all addresses failed"))).toBe(true);
    // grammY's BotError: the handler's error in `error`, its message prefixed.
    const botError = Object.assign(new Error(`Error in middleware: ${refused.message}`), { error: refused });
    expect(isDatabaseUnreachable(botError)).toBe(true);
  });

  it("is false for a failed migration, a bad password or a missing database (waiting would not help)", () => {
    expect(isDatabaseUnreachable(new StorageError("storage.failed", "migration 0001_init failed: syntax error"))).toBe(
      false,
    );
    expect(isDatabaseUnreachable(Object.assign(new Error("password authentication failed"), { code: "28P01" }))).toBe(
      false,
    );
    expect(isDatabaseUnreachable(Object.assign(new Error('database "x" does not exist'), { code: "3D000" }))).toBe(
      false,
    );
  });
});
