import { openStore } from "../../src/storage/open-store.js";
import { storeContract } from "./store-contract.js";
import { storeCombinedContract } from "./store-contract-combined.js";
import { storeAccountingContract } from "./store-contract-accounting.js";
import { storeApprovalContract } from "./store-contract-approvals.js";
import { storeBudgetContract } from "./store-contract-budgets.js";
import { storeLoginContract } from "./store-contract-logins.js";
import { storeRuleContract } from "./store-contract-rules.js";
import { storeVoteContract } from "./store-contract-votes.js";
import { storeCardCopyContract } from "./store-contract-card-copies.js";
import { quietLogger, temporarySqlite } from "./test-databases.js";

const openSqlite = async () => {
  const database = temporarySqlite();
  const opened = await openStore({ databaseUrl: database.url, logger: quietLogger() });
  return {
    store: opened.store,
    close: async () => {
      await opened.close();
      database.remove();
    },
  };
};

storeContract("SQLite", openSqlite);
storeCombinedContract("SQLite", openSqlite);
storeApprovalContract("SQLite", openSqlite);
storeAccountingContract("SQLite", openSqlite);
storeBudgetContract("SQLite", openSqlite);
storeLoginContract("SQLite", openSqlite);
storeRuleContract("SQLite", openSqlite);
storeVoteContract("SQLite", openSqlite);
storeCardCopyContract("SQLite", openSqlite);
