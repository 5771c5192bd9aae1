import { ColumnTypeEnum } from "@prisma/driver-adapter-utils";
import type { Row } from "@libsql/client";
import { describe, expect, it } from "vitest";
import { columnTypesOf, mapArgument, mapRow, mapSqliteError } from "./sqlite-conversion.js";

describe("SQLite values and errors as Prisma reads them", () => {
  it("types columns by their declaration, an expression's by its first non-null value", () => {
    const rows = [
      [null, null, 1.5],
      [null, "x", 2],
    ] as unknown as Row[];
    expect(columnTypesOf(["DATETIME", "", ""], rows)).toEqual([
      ColumnTypeEnum.DateTime,
      ColumnTypeEnum.Text,
      ColumnTypeEnum.UnknownNumber,
    ]);
    expect(columnTypesOf([""], [[null]] as unknown as Row[])).toEqual([ColumnTypeEnum.Int32]);
  });

  it("maps bytes, non-integer integers, numeric datetimes and bigints", () => {
    const bytes = new Uint8Array([1, 2]).buffer;
    const row = [bytes, 2.7, 0, 5n] as unknown as Row;
    const types = [ColumnTypeEnum.Bytes, ColumnTypeEnum.Int32, ColumnTypeEnum.DateTime, ColumnTypeEnum.Int64];
    expect(mapRow(row, types)).toEqual([[1, 2], 2, "1970-01-01T00:00:00.000Z", "5"]);
  });

  it("writes dates as ISO 8601 with +00:00 and reads typed text arguments", () => {
    expect(mapArgument(new Date(0), { scalarType: "datetime", arity: "scalar" })).toBe("1970-01-01T00:00:00.000+00:00");
    expect(mapArgument("7", { scalarType: "bigint", arity: "scalar" })).toBe(7n);
    expect(mapArgument(null, undefined)).toBeNull();
  });

  it("names unique, null and foreign-key violations, busy, missing tables and columns", () => {
    expect(mapSqliteError({ message: "UNIQUE constraint failed: Message.id", rawCode: 1555 })).toMatchObject({
      kind: "UniqueConstraintViolation",
      constraint: { fields: ["id"] },
      originalCode: "1555",
    });
    expect(mapSqliteError({ message: "NOT NULL constraint failed: Chat.world", rawCode: 1299 }).kind).toBe(
      "NullConstraintViolation",
    );
    expect(mapSqliteError({ message: "FOREIGN KEY constraint failed", rawCode: 787 }).kind).toBe(
      "ForeignKeyConstraintViolation",
    );
    expect(mapSqliteError({ message: "database is locked", rawCode: 5 }).kind).toBe("SocketTimeout");
    expect(mapSqliteError({ message: "no such table: Nope", rawCode: 1 })).toMatchObject({
      kind: "TableDoesNotExist",
      table: "Nope",
    });
    expect(mapSqliteError({ message: "table Chat has no column named nope", rawCode: 1 })).toMatchObject({
      kind: "ColumnNotFound",
      column: "nope",
    });
    expect(mapSqliteError({ message: "disk I/O error", rawCode: 10 })).toMatchObject({
      kind: "sqlite",
      extendedCode: 10,
    });
  });
});
