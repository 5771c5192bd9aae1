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
      // Measured 7.4 (graphile-worker: add, fetch, a blocked fetch, claim, finish, its completion, whenIdle's look).
      chainStatementsPerJob: 9,
      open: () => openStore({ databaseUrl: database.url, logger: quietLogger(), migrate: false }),
      remove: () => database.drop(),
    };
  });
});
