/**
 * When to call `deps.ensureData` (the first-use loader): when the store holds nothing of a kind the tool needs
 * (not loaded yet in this process), the tool waits for the load, with progress (calls waiting for the same kind
 * share one); otherwise it answers at once and the loader is nudged in the background (at most once a minute per
 * set of kinds) to refresh stale types, failures there only logged.
 */
import type { EntityKind } from "../../entities/types.ts";
import { log } from "../../log.ts";
import { emptyKinds } from "../../store/entities.ts";
import type { VersionMemo } from "../../store/version-cache.ts";
import type { DataProgress, EnsureData, ToolDeps } from "./deps.ts";

const NUDGE_INTERVAL_MS = 60_000;

export class DataGate {
  private readonly ensured = new Set<EntityKind>();
  private readonly inflight = new Map<EntityKind, Promise<void>>();
  private readonly nudged = new Map<string, number>();

  constructor(private readonly deps: ToolDeps) {}

  /** Kinds among `kinds` the store holds no entity of (store/entities.ts remembers the answer per store version). */
  emptyKinds(kinds: readonly EntityKind[], version?: VersionMemo): EntityKind[] {
    return emptyKinds(this.deps.db, kinds, version);
  }

  /**
   * Wait for a first-use load of the kinds the store lacks, if any; true when it waited for one (a `version`, the
   * store version the caller has read, is then stale).
   */
  async ensure(
    kinds: readonly EntityKind[],
    onProgress?: (p: DataProgress) => void,
    version?: VersionMemo,
  ): Promise<boolean> {
    const load = this.deps.ensureData;
    if (!load || kinds.length === 0) return false;
    const missing = this.emptyKinds(
      kinds.filter((k) => !this.ensured.has(k)),
      version,
    );
    if (missing.length === 0) {
      this.nudge(load, kinds);
      return false;
    }
    const waits = missing.flatMap((k) => this.inflight.get(k) ?? []);
    const fresh = missing.filter((k) => !this.inflight.has(k));
    if (fresh.length > 0) {
      const p = load(fresh, onProgress)
        .then(() => {
          for (const k of fresh) this.ensured.add(k);
        })
        .finally(() => {
          for (const k of fresh) this.inflight.delete(k);
        });
      for (const k of fresh) this.inflight.set(k, p);
      waits.push(p);
    }
    await Promise.all(waits);
    return true;
  }

  /** Let the loader refresh stale data without making the caller wait. */
  private nudge(load: EnsureData, kinds: readonly EntityKind[]): void {
    // The set of kinds as one string.
    const id = [...kinds].sort().join(",");
    const now = Date.now();
    const last = this.nudged.get(id);
    if (last !== undefined && now - last < NUDGE_INTERVAL_MS) return;
    this.nudged.set(id, now);
    load(kinds).catch((err: unknown) => log.debug(`background data check for ${id} failed`, err));
  }
}
