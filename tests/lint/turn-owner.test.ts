/**
 * One owner per turn (docs/architecture.md, "Turns"): a turn's row, its calls' states and
 * results, its approvals and its stop marker are written only in src/world/turn/, a turn is
 * marked ended only by `closeTurn`, an approval card is updated only by
 * `publishApprovalOutcome`, and every world notice is stored and shown by `postWorldNotice`. The import rules keep the folder's edges
 * (`npm run deps`); this keeps its writes in it.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** The service's own source files (not tests, not storage, which implements the Store port). */
async function sourceFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const folder of ["src", "channels"]) {
    const entries = await readdir(path.join(root, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      const file = path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join("/");
      if (!entry.isFile() || !file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
      if (file.startsWith("src/storage/")) continue;
      files.set(file, await readFile(path.join(root, file), "utf8"));
    }
  }
  return files;
}

/** The files whose text matches `pattern`. */
async function filesMatching(pattern: RegExp): Promise<string[]> {
  const found: string[] = [];
  for (const [file, text] of await sourceFiles()) if (pattern.test(text)) found.push(file);
  return found.sort();
}

describe("one owner per turn", () => {
  it("approvals, tool results and stop markers are written only in src/world/turn/", async () => {
    const writers = await filesMatching(/\.(createApproval|decideApproval|addToolResult|markTurnStopped)\(/);
    expect(writers.length).toBeGreaterThan(0);
    expect(writers.filter((file) => !file.startsWith("src/world/turn/"))).toEqual([]);
  });

  it("a turn's row and its calls' states change only in src/world/turn/", async () => {
    const writers = await filesMatching(
      /\.(createTurn|updateTurn|endTurn|endSettledTurn|setToolCallState|incrementAgentTurns)\(/,
    );
    expect(writers.length).toBeGreaterThan(0);
    expect(writers.filter((file) => !file.startsWith("src/world/turn/"))).toEqual([]);
  });

  it("a turn is marked ended only by closeTurn", async () => {
    // The store's conditional ends (`endTurn`, `endSettledTurn`: only the call that ends it publishes turn-ended).
    expect(await filesMatching(/\.endTurn\(|\.endSettledTurn\(|state: "ended"/)).toEqual([
      "src/world/turn/close-turn.ts",
    ]);
  });

  it("an approval card is updated only by publishApprovalOutcome", async () => {
    expect(await filesMatching(/type: "approval-decided",/)).toEqual(["src/world/turn/approval-outcome.ts"]);
  });

  it("every world notice is stored and shown by postWorldNotice", async () => {
    // Delivery's notice of a given-up delivery goes through it too (src/world/given-up-notice.ts).
    expect(await filesMatching(/author: worldAuthor/)).toEqual(["src/world/world-notice.ts"]);
  });
});
