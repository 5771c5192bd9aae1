import { migrateDatabase } from "../../src/storage/migrate.js";
import { openStore } from "../../src/storage/open-store.js";
import { queueContract } from "./queue-contract.js";
import { quietLogger, temporarySqlite } from "./test-databases.js";

queueContract("SQLite", async () => {
  const database = temporarySqlite();
  await migrateDatabase({ databaseUrl: database.url, logger: quietLogger() });
  return {
    provider: "sqlite",
    open: () => openStore({ databaseUrl: database.url, logger: quietLogger(), migrate: false }),
    remove: async () => database.remove(),
  };
});
