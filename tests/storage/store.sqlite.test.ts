import { openStore } from "../../src/storage/open-store.js";
import { storeContract } from "./store-contract.js";
import { quietLogger, temporarySqlite } from "./test-databases.js";

storeContract("SQLite", async () => {
  const database = temporarySqlite();
  const opened = await openStore({ databaseUrl: database.url, logger: quietLogger() });
  return {
    store: opened.store,
    close: async () => {
      await opened.close();
      database.remove();
    },
  };
});
