/** Test helper process: takes the embedding lease of a store, says "held", and keeps it until killed. */
import { openStore } from "../../src/store/db.ts";
import { acquireEmbedLease } from "../../src/store/embed-lease.ts";

const store = openStore({ path: process.argv[2]! });
const r = acquireEmbedLease(store.db, "sync");
process.stdout.write(r.ok ? "held\n" : "busy\n");
setInterval(() => {}, 1000);
