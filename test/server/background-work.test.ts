/**
 * The server's background work at start (the name index, the compact rows, the check for missing
 * vectors) yields to searches: it runs once no search is running, and never after the server closed.
 */
import { describe, expect, test } from "bun:test";
import { idleRunner } from "../../src/server/deps.ts";

describe("background work at start", () => {
  test("runs after its delay when no search is running", async () => {
    const ran: number[] = [];
    const stop = new AbortController();
    const t0 = performance.now();
    idleRunner(() => false, stop.signal)(40, () => ran.push(performance.now() - t0));
    await Bun.sleep(10);
    expect(ran).toEqual([]);
    for (let i = 0; i < 100 && ran.length === 0; i++) await Bun.sleep(10);
    expect(ran.length).toBe(1);
    expect(ran[0]!).toBeGreaterThanOrEqual(35);
  });

  test("waits while a search is running, then runs once", async () => {
    let searching = true;
    let runs = 0;
    const stop = new AbortController();
    idleRunner(() => searching, stop.signal)(0, () => runs++);
    await Bun.sleep(120);
    expect(runs).toBe(0);
    searching = false;
    for (let i = 0; i < 100 && runs === 0; i++) await Bun.sleep(10);
    await Bun.sleep(60);
    expect(runs).toBe(1);
  });

  test("nothing runs once the server closed, whether it was waiting for its delay or for a search", async () => {
    let runs = 0;
    const waiting = new AbortController();
    idleRunner(() => false, waiting.signal)(30, () => runs++);
    waiting.abort();
    const busy = new AbortController();
    idleRunner(() => true, busy.signal)(0, () => runs++);
    await Bun.sleep(60);
    busy.abort();
    await Bun.sleep(80);
    expect(runs).toBe(0);
    idleRunner(() => false, busy.signal)(0, () => runs++);
    await Bun.sleep(30);
    expect(runs).toBe(0);
  });
});
