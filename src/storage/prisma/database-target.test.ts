import { describe, expect, it } from "vitest";
import { defaultDatabaseUrl, parseDatabaseUrl, redactDatabaseUrl, sqliteDirectory } from "./database-target.js";

describe("parseDatabaseUrl", () => {
  it("reads a relative SQLite file from the working directory", () => {
    const target = parseDatabaseUrl("file:./data/roundtable.db", "/srv/app");
    expect(target).toEqual({
      provider: "sqlite",
      url: "file:/srv/app/data/roundtable.db",
      path: "/srv/app/data/roundtable.db",
    });
    if (target.provider !== "sqlite") throw new Error("expected SQLite");
    expect(sqliteDirectory(target)).toBe("/srv/app/data");
  });

  it("defaults to the SQLite file under ./data", () => {
    expect(defaultDatabaseUrl).toBe("file:./data/roundtable.db");
    expect(parseDatabaseUrl(undefined, "/x")).toMatchObject({ provider: "sqlite", path: "/x/data/roundtable.db" });
  });

  it("accepts absolute paths, file:// URLs and ignores query strings", () => {
    expect(parseDatabaseUrl("file:/var/lib/rt.db")).toMatchObject({ path: "/var/lib/rt.db" });
    expect(parseDatabaseUrl("file:///var/lib/rt.db")).toMatchObject({ path: "/var/lib/rt.db" });
    expect(parseDatabaseUrl("file:./rt.db?mode=rwc", "/y")).toMatchObject({ path: "/y/rt.db" });
  });

  it("recognises both PostgreSQL schemes", () => {
    expect(parseDatabaseUrl("postgres://u:p@db:5432/rt")).toEqual({
      provider: "postgresql",
      url: "postgres://u:p@db:5432/rt",
    });
    expect(parseDatabaseUrl("postgresql://db/rt").provider).toBe("postgresql");
  });

  it("refuses other schemes and in-memory SQLite, without echoing a password", () => {
    expect(() => parseDatabaseUrl("mysql://root:secret@db/rt")).toThrow(/file:.*postgres/);
    expect(() => parseDatabaseUrl("mysql://root:secret@db/rt")).not.toThrow(/secret/);
    expect(() => parseDatabaseUrl("file::memory:")).toThrow(/in-memory/);
    expect(() => parseDatabaseUrl("sqlite.db")).toThrow(expect.objectContaining({ code: "config.invalid" }));
  });

  it("redacts passwords for logs", () => {
    expect(redactDatabaseUrl("postgresql://rt:hunter2@db:5432/rt")).toBe("postgresql://rt:***@db:5432/rt");
    expect(redactDatabaseUrl("postgresql://db/rt")).toBe("postgresql://db/rt");
  });
});
