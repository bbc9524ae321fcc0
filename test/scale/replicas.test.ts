/**
 * Stateless HTTP scales out: 3 `serve --http` replicas behind HAProxy (Debian package, started by
 * the test on 127.0.0.1), clients of both protocol eras doing mixed calls, one replica killed
 * mid-run: no call fails once the balancer's health check has dropped it (HAProxy also retries a
 * refused connection on another replica, so calls in flight at the kill should not fail either;
 * the test reports them). Skips with the reason when haproxy is not installed
 * (`apt-get install haproxy`). Throughput, 3 replicas vs 1: `bun bench/replicas.ts`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeStore } from "../support/entities.ts";
import {
  type Balancer,
  backendStatus,
  driveLoad,
  findHaproxy,
  type Replica,
  startHaproxy,
  startReplicas,
  summarizeCalls,
} from "../support/replicas.ts";
import { makeTempDir } from "../support/tmp.ts";

const haproxy = findHaproxy();
const skipReason = haproxy ? "" : " — skipped: haproxy is not installed (apt-get install haproxy)";

describe.skipIf(!haproxy)(`replicas behind HAProxy${skipReason}`, () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let replicas: Replica[] = [];
  let lb: Balancer | undefined;

  beforeAll(async () => {
    tmp = makeTempDir("lk-replicas-");
    const made = makeStore();
    const db = join(tmp.dir, "pack.db");
    made.store.db.exec(`VACUUM INTO '${db}'`);
    made.cleanup();
    replicas = await startReplicas(3, db, tmp.dir);
    lb = await startHaproxy(
      haproxy!,
      replicas.map((r) => r.port),
      tmp.dir,
    );
  }, 60_000);

  afterAll(async () => {
    await lb?.stop();
    for (const r of replicas) r.proc.kill();
    await Promise.all(replicas.map((r) => r.proc.exited));
    tmp.cleanup();
  });

  test("mixed calls, both eras; a replica killed mid-run; no failed calls once the health check drops it", async () => {
    const durationMs = 6000;
    const killAt = 2000;
    let killedAt = 0;
    let droppedAt = 0;
    const watcher = (async () => {
      await Bun.sleep(killAt);
      replicas[1]!.proc.kill("SIGKILL");
      killedAt = performance.now();
      for (;;) {
        if ((await backendStatus(lb!.statsUrl)).r1?.startsWith("DOWN")) {
          droppedAt = performance.now();
          return;
        }
        await Bun.sleep(20);
      }
    })();
    const records = await driveLoad(lb!.url, { modern: 3, legacy: 3, durationMs });
    await watcher;
    const after = records.filter((r) => r.startedAt >= droppedAt);
    const failedAfter = after.filter((r) => !r.ok);
    const all = summarizeCalls(records, durationMs);
    process.stderr.write(
      `[replicas] ${all.calls} calls (${records.filter((r) => r.era === "2026-07-28").length} ` +
        `2026-07-28, ${records.filter((r) => r.era === "2025-11-25").length} 2025-11-25), ` +
        `${all.failed} failed in all; replica dropped ${(droppedAt - killedAt).toFixed(0)} ` +
        `ms after the kill; ${after.length} calls after, ${failedAfter.length} failed\n`,
    );
    expect(droppedAt).toBeGreaterThan(killedAt);
    // Both eras were served through the balancer, before and after the drop.
    for (const era of ["2026-07-28", "2025-11-25"])
      expect(after.filter((r) => r.era === era && r.ok).length).toBeGreaterThan(10);
    expect(failedAfter.map((r) => r.error)).toEqual([]);
    // The survivors kept serving; the dead one is still down.
    expect((await backendStatus(lb!.statsUrl)).r1).toMatch(/^DOWN/);
  }, 60_000);
});
