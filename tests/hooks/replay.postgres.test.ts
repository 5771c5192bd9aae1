import { it } from "vitest";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { replayFeedsTheEventsAsTheyCame, replayOverStoredHistory } from "./replay-history.js";
import { checkHookOutcomeStore } from "./hook-outcome-store.js";

describePostgres("roundtable replay on PostgreSQL", (serverUrl) => {
  it("lists what a policy would have denied or changed, counts a throwing module, and writes nothing", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      await replayOverStoredHistory(database.url);
    } finally {
      await database.drop();
    }
  });

  it("feeds the events as they came, not as the live policy changed them", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      await replayFeedsTheEventsAsTheyCame(database.url);
    } finally {
      await database.drop();
    }
  });

  it("hook outcomes: the first stored outcome wins, with its effects and only its", async () => {
    const database = await createPostgresDatabase(serverUrl());
    try {
      await checkHookOutcomeStore(database.url);
    } finally {
      await database.drop();
    }
  });
});
