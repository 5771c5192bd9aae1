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
import { createPostgresDatabase, describePostgres, quietLogger } from "./test-databases.js";

describePostgres("PostgreSQL store", (serverUrl) => {
  const openPostgres = async () => {
    const database = await createPostgresDatabase(serverUrl());
    const opened = await openStore({ databaseUrl: database.url, logger: quietLogger() });
    return {
      store: opened.store,
      close: async () => {
        await opened.close();
        await database.drop();
      },
    };
  };
  storeContract("PostgreSQL", openPostgres);
  storeCombinedContract("PostgreSQL", openPostgres);
  storeApprovalContract("PostgreSQL", openPostgres);
  storeAccountingContract("PostgreSQL", openPostgres);
  storeBudgetContract("PostgreSQL", openPostgres);
  storeLoginContract("PostgreSQL", openPostgres);
  storeRuleContract("PostgreSQL", openPostgres);
  storeVoteContract("PostgreSQL", openPostgres);
  storeCardCopyContract("PostgreSQL", openPostgres);
});
