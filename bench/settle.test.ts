/**
 * The CPU phases start measuring once the server is idle (lib/cpu.ts settle): a process busy for
 * a while is waited for, an idle one is not, one that never goes idle is given up on.
 */
import { describe, expect, test } from "bun:test";
import { settle } from "./lib/cpu.ts";

function spawnBusy(busyMs: number) {
  // Busy for busyMs, then idle (a pending timer keeps it alive) until killed.
  return Bun.spawn(
    [
      process.execPath,
      "-e",
      `const t = Date.now(); while (Date.now() - t < ${busyMs}) {} setTimeout(() => {}, 60_000);`,
    ],
    { stdout: "ignore", stderr: "ignore" },
  );
}

describe.if(process.platform === "linux")("settle", () => {
  test("waits out a busy start, and returns soon for an idle process", async () => {
    const busy = spawnBusy(1500);
    try {
      const t0 = performance.now();
      expect(await settle(busy.pid, { minMs: 100 })).toBe(true);
      expect(performance.now() - t0).toBeGreaterThan(1200);
      const t1 = performance.now();
      expect(await settle(busy.pid, { minMs: 100 })).toBe(true);
      expect(performance.now() - t1).toBeLessThan(1200);
    } finally {
      busy.kill();
    }
  }, 30_000);

  test("gives up on a process that never goes idle", async () => {
    const busy = spawnBusy(60_000);
    try {
      expect(await settle(busy.pid, { minMs: 100, maxMs: 1000 })).toBe(false);
    } finally {
      busy.kill();
    }
  }, 30_000);
});
