import { describe, it } from "vitest";
import { temporarySqlite } from "../storage/test-databases.js";
import { replayFeedsTheEventsAsTheyCame, replayOverStoredHistory } from "./replay-history.js";
import { checkHookOutcomeStore } from "./hook-outcome-store.js";

describe("roundtable replay on SQLite", () => {
  it("lists what a policy would have denied or changed, counts a throwing module, and writes nothing", async () => {
    const database = temporarySqlite();
    try {
      await replayOverStoredHistory(database.url);
    } finally {
      database.remove();
    }
  });

  it("feeds the events as they came, not as the live policy changed them", async () => {
    const database = temporarySqlite();
    try {
      await replayFeedsTheEventsAsTheyCame(database.url);
    } finally {
      database.remove();
    }
  });
});

describe("hook outcomes on SQLite", () => {
  it("the first stored outcome wins, with its effects and only its", async () => {
    const database = temporarySqlite();
    try {
      await checkHookOutcomeStore(database.url);
    } finally {
      database.remove();
    }
  });
});
