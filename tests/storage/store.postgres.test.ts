import { openStore } from "../../src/storage/open-store.js";
import { storeContract } from "./store-contract.js";
import { createPostgresDatabase, describePostgres, quietLogger } from "./test-databases.js";

describePostgres("PostgreSQL store", (serverUrl) => {
  storeContract("PostgreSQL", async () => {
    const database = await createPostgresDatabase(serverUrl());
    const opened = await openStore({ databaseUrl: database.url, logger: quietLogger() });
    return {
      store: opened.store,
      close: async () => {
        await opened.close();
        await database.drop();
      },
    };
  });
});
