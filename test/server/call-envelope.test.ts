/**
 * server/protocol/call-envelope.ts: a tools/call's params pass its checks only when the SDK's CallToolRequestParams
 * schema accepts them.
 */
import { describe, expect, test } from "bun:test";
import { callParamsProblem, normalizeCallParams } from "../../src/server/protocol/call-envelope.ts";
import { openLoopback } from "../support/loopback.ts";
import { specCheck } from "../../src/server/protocol/protocol-checks.ts";
import { makeStore } from "../support/entities.ts";
import { makeDeps } from "../support/mcp.ts";

describe("callParamsProblem", () => {
  test("no problem found ⇒ none in the SDK's schema either (with and without _meta)", () => {
    const absent = Symbol("absent");
    const names = ["search_spell", "", 5, null, absent];
    const args = [absent, {}, { name: "Fireball", limit: 3 }, { nested: { deep: [1, 2] } }, null, [], "x", 5];
    const metas = [absent, {}, { progressToken: 7 }, { progressToken: "t" }, { progressToken: 1.5 }, "x", null];
    const extras = [{}, { task: null }, { task: { ttl: 5 } }, { other: 1 }];
    let clean = 0;
    for (const name of names)
      for (const a of args)
        for (const _meta of metas)
          for (const extra of extras) {
            const parts = { name, arguments: a, _meta, ...extra };
            const params = JSON.parse(
              JSON.stringify(Object.fromEntries(Object.entries(parts).filter(([, x]) => x !== absent))),
            );
            if (callParamsProblem(params) !== undefined) continue;
            clean++;
            const ok = specCheck("CallToolRequestParams", normalizeCallParams(params)).ok;
            expect({ params, ok }).toEqual({ params, ok: true });
          }
    expect(clean).toBeGreaterThan(20);
  });

  test("the usual call has no problem; a malformed one gets one sentence", () => {
    expect(callParamsProblem({ name: "search_spell", arguments: { name: "Fireball" } })).toBeUndefined();
    expect(callParamsProblem({ name: "search_spell" })).toBeUndefined();
    expect(callParamsProblem({ name: "search_spell", arguments: null })).toBeUndefined();
    expect(callParamsProblem({ name: "search_spell", arguments: [] })).toContain("arguments must be an object");
    expect(callParamsProblem({ name: "search_spell", _meta: { progressToken: 1.5 } })).toContain("params._meta");
  });
});

describe("the edge (mcp.ts guardEdge) over the stdio line transport", () => {
  test("a malformed envelope → -32602 and the sentence; `arguments: null` → the tool's answer", async () => {
    const made = makeStore();
    const lb = await openLoopback(makeDeps(made.store));
    try {
      type Answer = {
        error?: { code: number; message: string };
        result?: { isError?: boolean; structuredContent?: unknown };
      };
      const bad = (await lb.request("tools/call", { name: "search_spell", arguments: [1] })) as Answer;
      const sentence = callParamsProblem({ name: "search_spell", arguments: [1] });
      expect(bad.error).toEqual({ code: -32602, message: sentence! });
      const none = (await lb.request("tools/call", { name: "list_documents", arguments: null })) as Answer;
      expect(none.result?.isError).toBeUndefined();
      expect(none.result?.structuredContent).toBeDefined();
    } finally {
      await lb.close();
      made.cleanup();
    }
  });
});
