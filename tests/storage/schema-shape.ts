/**
 * The shape of a database as migration SQL builds it: each table's column definitions and the
 * other statements (indexes, constraints). Built from `0001_init` plus every later migration
 * (`ALTER TABLE … ADD COLUMN`, new tables, new indexes), it can be compared with what
 * `prisma migrate diff` makes of the schema, so a later migration that adds a column counts.
 */
export interface SchemaShape {
  tables: Map<string, Set<string>>;
  statements: Set<string>;
}

export function emptyShape(): SchemaShape {
  return { tables: new Map(), statements: new Set() };
}

const createTable = /^CREATE TABLE "([^"]+)" \(([\s\S]*)\)$/;
const addColumn = /^ALTER TABLE "([^"]+)" ADD COLUMN ([\s\S]+)$/;

/** Apply the statements of `sql` to `shape` (comments ignored, whitespace normalised). */
export function applySql(shape: SchemaShape, sql: string): SchemaShape {
  const statements = sql
    .split("\n")
    .filter((line) => !line.trim().startsWith("--"))
    .join("\n")
    .split(";")
    .map((statement) => statement.trim())
    .filter((statement) => statement !== "");
  for (const statement of statements) {
    const table = createTable.exec(statement);
    if (table) {
      const columns = (table[2] ?? "")
        .split(/,\s*\n/)
        .map((line) => line.trim().replace(/\s+/g, " "))
        .filter((line) => line !== "");
      shape.tables.set(table[1] ?? "", new Set(columns));
      continue;
    }
    const column = addColumn.exec(statement);
    if (column) {
      shape.tables.get(column[1] ?? "")?.add((column[2] ?? "").trim().replace(/\s+/g, " "));
      continue;
    }
    shape.statements.add(statement.replace(/\s+/g, " "));
  }
  return shape;
}

/** Tables as sorted column lists, for a readable comparison. */
export function tablesOf(shape: SchemaShape): Record<string, string[]> {
  return Object.fromEntries([...shape.tables].map(([name, columns]) => [name, [...columns].sort()]));
}
