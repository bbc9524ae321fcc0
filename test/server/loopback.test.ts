/**
 * The warm-up's in-process client (server/loopback.ts): requests go through the line transport
 * and the SDK to the tools and come back as JSON-RPC responses, without a byte on the process's
 * stdout; closing settles every request, so nothing can hang the warm-up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openLoopback } from "../../src/server/loopback.ts";
import type { Store } from "../../src/store/db.ts";
import { makeDeps } from "../support/mcp.ts";
import { makeStore } from "../support/entities.ts";
import { clearTestLogs, testLogs } from "../support/logs.ts";

let store: Store;
let cleanup: () => void;
beforeAll(() => {
  ({ store, cleanup } = makeStore());
});
afterAll(() => cleanup());

describe("loopback", () => {
  test("a tool call answers as over stdio, and nothing is written to the process's stdout", async () => {
    const write = process.stdout.write.bind(process.stdout);
    let written = 0;
    process.stdout.write = ((...args: Parameters<typeof write>) => {
      written++;
      return write(...args);
    }) as typeof process.stdout.write;
    try {
      const lb = await openLoopback(makeDeps(store));
      try {
        const r = (await lb.request("tools/call", { name: "search_spell", arguments: { name: "Fireball" } })) as { result: { content: Array<{ text: string }>; isError?: boolean } };
        expect(r.result.isError ?? false).toBe(false);
        expect(JSON.parse(r.result.content[0]!.text).results[0].name).toBe("Fireball");
        const bad = (await lb.request("tools/call", { name: "search_spell", arguments: { level: "high" } })) as { result: { content: Array<{ text: string }>; isError?: boolean } };
        expect(bad.result.isError).toBe(true);
        expect(bad.result.content[0]!.text).toContain("level");
        const unknown = (await lb.request("tools/call", { name: "no_such_tool", arguments: {} })) as { error: { code: number } };
        expect(unknown.error.code).toBe(-32602);
      } finally {
        await lb.close();
      }
    } finally {
      process.stdout.write = write;
    }
    expect(written).toBe(0);
  });

  test("close settles what is waiting, and a request after it fails at once", async () => {
    const lb = await openLoopback(makeDeps(store));
    const waiting = lb.request("tools/call", { name: "search_spell", arguments: { name: "Fireball" } });
    await lb.close();
    // Answered before the close, or told the connection closed: never left pending.
    const settled = await waiting.then(
      () => "answered",
      (err: Error) => err.message,
    );
    expect(["answered", "the warm-up connection closed before the answer"]).toContain(settled);
    const t0 = performance.now();
    await expect(lb.request("tools/call", { name: "search_spell", arguments: { name: "Fireball" } })).rejects.toThrow(/connection is closed/);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  test("a tool that fails in a warm-up call (background deps) answers a tool error, logged below error level", async () => {
    const failing = { search: () => Promise.reject(new Error("boom")) };
    for (const background of [true, false]) {
      clearTestLogs();
      const lb = await openLoopback(makeDeps(store, { ...failing, background }));
      try {
        const r = (await lb.request("tools/call", { name: "search_spell", arguments: { name: "Fireball" } })) as { result: { isError?: boolean } };
        expect(r.result.isError).toBe(true);
      } finally {
        await lb.close();
      }
      expect(testLogs().some((l) => l.includes("ERROR search_spell failed"))).toBe(!background);
    }
  });

  test("a request nobody answers fails after its timeout", async () => {
    // A search that never finishes: the tool never answers.
    const lb = await openLoopback(makeDeps(store, { search: () => new Promise(() => {}) }), 50);
    try {
      await expect(lb.request("tools/call", { name: "search_spell", arguments: { name: "Fireball" } })).rejects.toThrow(/did not answer tools\/call within 50 ms/);
    } finally {
      await lb.close();
    }
  });
});
