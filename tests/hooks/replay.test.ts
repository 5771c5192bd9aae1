import { describe, it } from "vitest";
import { temporarySqlite } from "../storage/test-databases.js";
import { replayOverStoredHistory } from "./replay-history.js";

describe("roundtable replay on SQLite", () => {
  it("lists what a policy would have denied or changed, counts a throwing module, and writes nothing", async () => {
    const database = temporarySqlite();
    try {
      await replayOverStoredHistory(database.url);
    } finally {
      database.remove();
    }
  });
});
