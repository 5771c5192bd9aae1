import type { CheckRow } from "./check-row.js";

/** The rows as aligned columns under a header: CHECK, STATUS, DETAIL. */
export function formatCheckTable(rows: readonly CheckRow[]): string {
  const header: CheckRow = { name: "CHECK", status: "ok", detail: "DETAIL" };
  const nameWidth = Math.max(...[header, ...rows].map((row) => row.name.length));
  const statusWidth = "STATUS".length;
  const line = (name: string, status: string, detail: string): string =>
    `${name.padEnd(nameWidth)}  ${status.padEnd(statusWidth)}  ${detail}`.trimEnd();
  return [line("CHECK", "STATUS", "DETAIL"), ...rows.map((row) => line(row.name, row.status, row.detail))].join("\n");
}
