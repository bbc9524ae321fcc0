/**
 * The warm-up's in-process client (server/loopback.ts): requests go through the line transport
 * and the SDK to the tools and come back as JSON-RPC responses, without a byte on the process's
 * stdout; a request nobody answers fails after its timeout instead of hanging the warm-up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openLoopback } from "../../src/server/loopback.ts";
import type { Store } from "../../src/store/db.ts";
import { makeDeps } from "../support/mcp.ts";
import { makeStore } from "../support/entities.ts";

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

  test("a request after close fails after its timeout", async () => {
    const lb = await openLoopback(makeDeps(store), 50);
    await lb.close();
    await expect(lb.request("tools/call", { name: "search_spell", arguments: { name: "Fireball" } })).rejects.toThrow(/did not answer tools\/call within 50 ms/);
  });
});
