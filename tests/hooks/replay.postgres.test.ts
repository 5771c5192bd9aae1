import { it } from "vitest";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { replayOverStoredHistory } from "./replay-history.js";

describePostgres("roundtable replay on PostgreSQL", (serverUrl) => {
  it("lists what a policy would have denied or changed, counts a throwing module, and writes nothing", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      await replayOverStoredHistory(database.url);
    } finally {
      await database.drop();
    }
  });
});
