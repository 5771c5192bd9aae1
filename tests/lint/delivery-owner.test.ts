/**
 * Delivery owns delivery (docs/architecture.md, "Delivery"): where a post landed (a message, a
 * draft, a card, a file, an event delivered) is recorded only in src/world/delivery/, the one
 * place that posts; storage implements `recordOutbound` and the `Store` port declares it. The
 * import rules keep the outbox and delivery apart (`npm run deps`); this keeps the records in it.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** The service's own source files (not tests), by path from the repository root. */
async function sourceFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const folder of ["src", "channels"]) {
    const entries = await readdir(path.join(root, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      const file = path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join("/");
      if (!entry.isFile() || !file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
      files.set(file, await readFile(path.join(root, file), "utf8"));
    }
  }
  return files;
}

/** The files with a call of `recordOutbound(`, and how many calls each. */
async function recordOutboundCalls(): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const [file, text] of await sourceFiles()) {
    // Every `recordOutbound(` but the port's declaration (`recordOutbound(record: OutboundRecord, …`).
    const count = text.match(/\brecordOutbound\((?!record: OutboundRecord)/g)?.length ?? 0;
    if (count > 0) calls.set(file, count);
  }
  return calls;
}

describe("delivery owns delivery", () => {
  it("records where posts landed (recordOutbound) only in src/world/delivery/ and storage", async () => {
    const calls = await recordOutboundCalls();
    const inDelivery = [...calls.keys()].filter((file) => file.startsWith("src/world/delivery/"));
    expect(inDelivery.length).toBeGreaterThan(0);
    const elsewhere = [...calls.keys()].filter(
      (file) => !file.startsWith("src/world/delivery/") && !file.startsWith("src/storage/"),
    );
    expect(elsewhere).toEqual([]);
  });
});
