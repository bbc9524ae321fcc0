import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { type FakeUpstream, startFakeUpstream } from "../test/support/fake-upstream.ts";

/**
 * The fake upstream for a store. A cached store was synced from a server on some port, and every
 * entity's source_url (part of its content hash) names it: serving again on that port keeps the
 * hashes, so only what really changed is embedded again. A new store, or a port now taken: any port.
 */
export async function startUpstreamFor(path: string, dataDir: string, say: (m: string) => void): Promise<FakeUpstream> {
  let port: number | undefined;
  if (existsSync(path)) {
    const db = new Database(path, { readonly: true });
    try {
      const url = db
        .query<{ u: string }, []>(
          "SELECT source_url AS u FROM entities WHERE source_url LIKE 'http://127.0.0.1:%' LIMIT 1",
        )
        .get()?.u;
      port = url ? Number(new URL(url).port) || undefined : undefined;
    } catch {
      port = undefined;
    } finally {
      db.close();
    }
  }
  if (port !== undefined) {
    try {
      return await startFakeUpstream({ dataDir, port });
    } catch {
      say(
        `port ${port} (the cached store's upstream) is taken: every ` +
          `entity's source_url changes, so all of them are embedded again`,
      );
    }
  }
  return startFakeUpstream({ dataDir });
}
