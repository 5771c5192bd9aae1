import type { InValue, Row } from "@libsql/client";
import {
  type ArgType,
  type ColumnType,
  ColumnTypeEnum,
  type Error as DriverError,
  type MappedError,
} from "@prisma/driver-adapter-utils";

// How SQLite values and errors become Prisma's, as `@prisma/adapter-libsql` 6.19 does it (its
// conversion and error mapping, Apache-2.0), so the store behaves exactly as it did on that adapter.

function mapDeclaredType(declared: string): ColumnType | null {
  switch (declared.toUpperCase()) {
    case "":
      return null;
    case "DECIMAL":
      return ColumnTypeEnum.Numeric;
    case "FLOAT":
      return ColumnTypeEnum.Float;
    case "DOUBLE":
    case "DOUBLE PRECISION":
    case "NUMERIC":
    case "REAL":
      return ColumnTypeEnum.Double;
    case "TINYINT":
    case "SMALLINT":
    case "MEDIUMINT":
    case "INT":
    case "INTEGER":
    case "SERIAL":
    case "INT2":
      return ColumnTypeEnum.Int32;
    case "BIGINT":
    case "UNSIGNED BIG INT":
    case "INT8":
      return ColumnTypeEnum.Int64;
    case "DATETIME":
    case "TIMESTAMP":
      return ColumnTypeEnum.DateTime;
    case "TIME":
      return ColumnTypeEnum.Time;
    case "DATE":
      return ColumnTypeEnum.Date;
    case "TEXT":
    case "CLOB":
    case "CHARACTER":
    case "VARCHAR":
    case "VARYING CHARACTER":
    case "NCHAR":
    case "NATIVE CHARACTER":
    case "NVARCHAR":
      return ColumnTypeEnum.Text;
    case "BLOB":
      return ColumnTypeEnum.Bytes;
    case "BOOLEAN":
      return ColumnTypeEnum.Boolean;
    case "JSONB":
      return ColumnTypeEnum.Json;
    default:
      return null;
  }
}

/** Column types from the declared ones; an expression's column takes the type of its first non-null value. */
export function columnTypesOf(declared: readonly string[], rows: readonly Row[]): ColumnType[] {
  return declared.map((type, column) => {
    const mapped = mapDeclaredType(type);
    if (mapped !== null) return mapped;
    for (const row of rows) {
      const value = row[column];
      if (value !== null) return inferredType(value);
    }
    return ColumnTypeEnum.Int32;
  });
}

function inferredType(value: unknown): ColumnType {
  switch (typeof value) {
    case "string":
      return ColumnTypeEnum.Text;
    case "bigint":
      return ColumnTypeEnum.Int64;
    case "boolean":
      return ColumnTypeEnum.Boolean;
    case "number":
      return ColumnTypeEnum.UnknownNumber;
    default:
      if (value instanceof ArrayBuffer) return ColumnTypeEnum.Bytes;
      // Programming error: the SQLite driver answers only the types above.
      throw new Error(`unexpected value of type ${typeof value}: ${String(value)}`);
  }
}

/** One row as Prisma reads it: bytes as arrays, integers truncated, datetimes as ISO text, bigints as text. */
export function mapRow(row: Row, columnTypes: readonly ColumnType[]): unknown[] {
  const result: unknown[] = [];
  for (let index = 0; index < row.length; index++) {
    const value: unknown = row[index];
    const type = columnTypes[index];
    if (value instanceof ArrayBuffer) result[index] = Array.from(new Uint8Array(value));
    else if (
      typeof value === "number" &&
      (type === ColumnTypeEnum.Int32 || type === ColumnTypeEnum.Int64) &&
      !Number.isInteger(value)
    )
      result[index] = Math.trunc(value);
    else if ((typeof value === "number" || typeof value === "bigint") && type === ColumnTypeEnum.DateTime)
      result[index] = new Date(Number(value)).toISOString();
    else if (typeof value === "bigint") result[index] = value.toString();
    else result[index] = value;
  }
  return result;
}

/** One argument as SQLite takes it (dates as ISO 8601 text with `+00:00`, as the libsql adapter writes them). */
export function mapArgument(argument: unknown, type: ArgType | undefined): InValue {
  if (argument === null) return null;
  let value = argument;
  if (typeof value === "string" && type?.scalarType === "bigint") return BigInt(value);
  if (typeof value === "string" && type?.scalarType === "decimal") return Number.parseFloat(value);
  if (typeof value === "string" && type?.scalarType === "datetime") value = new Date(value);
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "string" && type?.scalarType === "bytes") return Buffer.from(value, "base64");
  if (Array.isArray(value) && type?.scalarType === "bytes") return new Uint8Array(value);
  return value as InValue;
}

const sqliteBusy = 5;
const primaryCodeMask = 255;

/** A SQLite error as Prisma's error kinds (unique, null and foreign-key violations, busy, missing table or column). */
export function mapSqliteError(error: { message: string; rawCode?: number | undefined }): DriverError {
  const rawCode = error.rawCode ?? 1;
  const fields = () =>
    error.message
      .split("constraint failed: ")
      .at(1)
      ?.split(", ")
      .map((field) => field.split(".").pop() ?? field);
  const mapped = (): MappedError => {
    switch (rawCode) {
      case 2067:
      case 1555: {
        const names = fields();
        return { kind: "UniqueConstraintViolation", ...(names === undefined ? {} : { constraint: { fields: names } }) };
      }
      case 1299: {
        const names = fields();
        return { kind: "NullConstraintViolation", ...(names === undefined ? {} : { constraint: { fields: names } }) };
      }
      case 787:
      case 1811:
        return { kind: "ForeignKeyConstraintViolation", constraint: { foreignKey: {} } };
      default:
        if ((rawCode & primaryCodeMask) === sqliteBusy) return { kind: "SocketTimeout" };
        if (error.message.startsWith("no such table"))
          return { kind: "TableDoesNotExist", ...named("table", error.message.split(": ").at(1)) };
        if (error.message.startsWith("no such column"))
          return { kind: "ColumnNotFound", ...named("column", error.message.split(": ").at(1)) };
        if (error.message.includes("has no column named "))
          return { kind: "ColumnNotFound", ...named("column", error.message.split("has no column named ").at(1)) };
        return { kind: "sqlite", extendedCode: rawCode, message: error.message };
    }
  };
  return {
    ...mapped(),
    ...(error.rawCode === undefined ? {} : { originalCode: String(error.rawCode) }),
    originalMessage: error.message,
  };
}

function named<Key extends string>(key: Key, value: string | undefined): { [K in Key]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: string };
}
