/**
 * A process that takes one step of a PostgreSQL work queue and never finishes it (the test
 * SIGKILLs it): `DATABASE_URL` names the database. Prints `running <key>` when the step started.
 */
import pino from "pino";
import { openStore } from "../../../src/storage/open-store.js";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("DATABASE_URL is required");
const opened = await openStore({ databaseUrl, logger: pino({ level: "silent" }), migrate: false });
const queue = opened.createQueue({ leaseMs: 60 * 60 * 1000 });
await queue.start(async (job) => {
  process.stdout.write(`running ${job.key}\n`);
  await new Promise(() => undefined);
});
