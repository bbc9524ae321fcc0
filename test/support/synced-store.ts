/**
 * A store synced from the fixture upstream (test/fixtures/upstream served by a real HTTP server on
 * 127.0.0.1), in its own temporary folder: for tests that need what a real sync writes.
 */
import { expect } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { runSync, type SyncSource } from "../../src/ingest/sync.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { startFakeUpstream } from "./fake-upstream.ts";
import { makeTempDir } from "./tmp.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

export const FIXTURES = join(import.meta.dir, "..", "fixtures");

export interface SyncedStore {
  store: Store;
  /** The store's temporary folder (other files of the test may go there too). */
  dir: string;
  /** Close the store, stop the upstream, remove the folder. */
  cleanup(): Promise<void>;
}

/** Sync `sources` (every content type, forced) into a new store; fails the test if a type failed. */
export async function syncedStore(prefix: string, sources: readonly SyncSource[]): Promise<SyncedStore> {
  const fake = await startFakeUpstream({ dataDir: join(FIXTURES, "upstream") });
  const tmp = makeTempDir(prefix);
  const store = openStore({ path: join(tmp.dir, "lk.db") });
  const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
  const r = await runSync(store, { config, sources: [...sources], force: true });
  expect(r.results.filter((x) => x.status === "failed").map((x) => `${x.contentType}: ${x.error}`)).toEqual([]);
  return {
    store,
    dir: tmp.dir,
    cleanup: async () => {
      store.close();
      await fake.stop();
      tmp.cleanup();
    },
  };
}
