import { writeFile } from "node:fs/promises";

/** One row of the table: a figure, its value (a number or `p50 / p99`), and the aim. */
export interface FigureRow {
  key: string;
  name: string;
  value: string;
  aim: string;
}

/** Prints the rows as a Markdown table (the README's Performance section takes it as it is). */
export function renderTable(rows: FigureRow[], title: string): string {
  const header = [title, "value", "aim"];
  const cells = rows.map((row) => [row.name, row.value, row.aim]);
  const widths = header.map((text, column) => Math.max(text.length, ...cells.map((cell) => cell[column]?.length ?? 0)));
  const line = (parts: string[]) => `| ${parts.map((part, column) => part.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...cells.map(line)].join("\n");
}

export async function writeResults(file: string, results: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
}
