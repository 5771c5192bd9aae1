import { migrateDatabase } from "../../src/storage/migrate.js";
import { openStore } from "../../src/storage/open-store.js";
import { queueContract } from "./queue-contract.js";
import { createPostgresDatabase, describePostgres, quietLogger } from "./test-databases.js";

describePostgres("PostgreSQL work queue", (serverUrl) => {
  queueContract("PostgreSQL", async () => {
    const database = await createPostgresDatabase(serverUrl());
    await migrateDatabase({ databaseUrl: database.url, logger: quietLogger() });
    return {
      provider: "postgresql",
      // A job of a chain: its add (no wake-up: the chat's queue is held by the step adding it)
      // and its finish handing the chat on, the next job's row claimed in that statement; once
      // per chain a fetch and its claim, graphile-worker's batched completion and whenIdle's
      // look. Was 4 with a claim of its own for every handed job, 7.4 with a fetch for every
      // job and one more that the add's wake-up found blocked by the running step.
      chainStatementsPerJob: 3,
      open: () => openStore({ databaseUrl: database.url, logger: quietLogger(), migrate: false }),
      remove: () => database.drop(),
    };
  });
});
