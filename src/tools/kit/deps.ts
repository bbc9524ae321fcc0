/**
 * What the tools need from the rest of the program, injected by the server (and by tests).
 * Nothing here loads a model or touches the network by itself.
 */
import type { Database } from "bun:sqlite";
import type { EntityKind } from "../../entities/types.ts";
import type { DataProgress } from "../../ingest/ensure.ts";
import type { ModelState, SearchQuery, SearchResponse } from "../../search/types.ts";
import { Semaphore } from "../../semaphore.ts";

/** Defined by the loader that produces it (ingest/ensure.ts). */
export type { DataProgress };

/**
 * Make the store hold the given kinds (fetched from upstream on first need); rejects when upstream cannot be
 * reached. Cheap when the kinds are already synced (even if they hold no entities).
 */
export type EnsureData = (kinds: readonly EntityKind[], onProgress?: (p: DataProgress) => void) => Promise<void>;

export interface ToolDeps {
  db: Database;
  /** Runs one query (the serve command binds `runSearch` to its search context). */
  search: (q: SearchQuery) => Promise<SearchResponse>;
  /** First-use loader; when absent, tools answer from whatever the store holds. */
  ensureData?: EnsureData;
  /** The embedding model's state, for /health; never triggers a load. */
  modelState?: () => ModelState;
  /** Document keys preferred when several have an entry (config `preferDocuments`); default: SRDs, newer first. */
  preferDocuments?: readonly string[];
  /** Remember the compact rows answers make and answer lists from them (tools/answer/compact-bodies.ts). */
  compactRows?: boolean;
  /** Searches run at once (createSearchSlots; the server's, from config `maxConcurrentCalls`); absent = no bound. */
  searchSlots?: Semaphore;
  /** Maximum characters of one tool answer (config `responseBudgetChars`). */
  responseBudgetChars: number;
  /** Clock, injectable for tests. */
  now?: () => Date;
}

/**
 * Slots for `limit` searches at once in a server (stdio and HTTP share them; see
 * server/transports/backpressure.ts for the other bounds). A freed slot is handed over on the next
 * turn of the event loop, so /health or a new connection is served between two queued searches.
 */
export function createSearchSlots(limit: number): Semaphore {
  return new Semaphore(limit, { handOverNextTurn: true });
}
