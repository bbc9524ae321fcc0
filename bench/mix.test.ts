/**
 * The benchmark's call mix stays valid as the tools evolve: every call is accepted by its tool and
 * searches what it claims to, and there are more distinct search texts than the server's
 * query-embedding cache holds (otherwise the "search" figures would measure cache hits).
 * Also the percentile helper the report relies on.
 */
import { describe, expect, test } from "bun:test";
import { openStore } from "../src/store/db.ts";
import { captureQuery } from "./phases/floors.ts";
import { balancedByMode, callMix, interleave } from "./queries.ts";
import { cpuMix, cpuWarmup, misspell } from "./cpu-mix.ts";
import { percentile, summarize } from "./lib/stats.ts";
import { DIALECTS, peerMix, peerWarmup } from "./peer-mix.ts";

const QUERY_CACHE_SIZE = 64; // src/search/model/embedder.ts

describe("bench call mix", () => {
  test("every call is accepted by its tool and maps to the intended query", async () => {
    const store = openStore({ path: ":memory:" });
    try {
      for (const spec of callMix()) {
        const q = await captureQuery(spec, store.db);
        if (spec.tool === "list_documents") {
          expect(q).toBeUndefined();
          continue;
        }
        expect(q, spec.id).toBeDefined();
        expect(q!.kinds.length, spec.id).toBeGreaterThan(0);
        if (spec.mode === "structured") expect(q!.name ?? q!.search, spec.id).toBeUndefined();
        if (spec.mode === "name") expect(q!.name, spec.id).toBeTruthy();
        if (spec.mode === "search") expect(q!.search, spec.id).toBeTruthy();
      }
    } finally {
      store.close();
    }
  });

  test("going round the mix, no search text comes back while still in the query cache", () => {
    const order = interleave(callMix());
    const texts = order.filter((s) => s.mode === "search").map((s) => String(s.args.search ?? s.args.query));
    expect(new Set(texts).size).toBe(texts.length);
    expect(texts.length).toBeGreaterThan(QUERY_CACHE_SIZE);
    expect(order).toHaveLength(callMix().length);
    expect(new Set(order.map((s) => s.id)).size).toBe(order.length);
  });

  test("the HTTP mix gives every mode the same share", () => {
    const mix = balancedByMode(callMix());
    const count = (m: string) => mix.filter((s) => s.mode === m).length;
    expect(count("structured")).toBe(count("search"));
    expect(count("name")).toBe(count("search"));
    expect(new Set(mix.filter((s) => s.mode === "search").map((s) => s.id)).size).toBe(
      callMix().filter((s) => s.mode === "search").length,
    );
  });
});

describe("server-CPU mix", () => {
  test(
    "every call is valid for its tool; no call repeats; " + "warm-up values are not the measured ones; typos are typos",
    async () => {
      const store = openStore({ path: ":memory:" });
      try {
        const mix = cpuMix();
        const warm = cpuWarmup();
        for (const spec of [...mix, ...warm]) {
          const q = await captureQuery({ ...spec, mode: spec.mode === "typo" ? "name" : spec.mode }, store.db);
          expect(q, spec.id).toBeDefined();
          if (spec.mode === "structured") expect(q!.name ?? q!.search, spec.id).toBeUndefined();
          if (spec.mode === "name" || spec.mode === "typo") expect(q!.name, spec.id).toBeTruthy();
          if (spec.mode === "search") expect(q!.search, spec.id).toBeTruthy();
        }
        const key = (s: { tool: string; args: Record<string, unknown> }) => `${s.tool} ${JSON.stringify(s.args)}`;
        expect(new Set(mix.map(key)).size).toBe(mix.length);
        for (const w of warm) expect(mix.map(key)).not.toContain(key(w));
        for (const m of ["structured", "name", "typo", "search"])
          expect(mix.filter((s) => s.mode === m).length).toBeGreaterThanOrEqual(12);
        for (const n of ["Adult Red Dragon", "Fireball", "Grappled"]) {
          expect(misspell(n)).not.toBe(n);
          expect([...misspell(n)].sort().join("")).toBe([...n].sort().join(""));
        }
      } finally {
        store.close();
      }
    },
  );
});

describe("peer mix", () => {
  test(
    "every dialect asks the same questions, in the same order; " +
      "LoreKeeper's calls are valid and ask what their mode says",
    async () => {
      const shape = (d: (typeof DIALECTS)[number]) =>
        [...peerMix(d), ...peerWarmup(d)].map((c) => `${c.mode} ${JSON.stringify(Object.values(c.args).map(String))}`);
      for (const d of DIALECTS) expect(shape(d).length).toBe(shape("lorekeeper").length);
      // The same values (names, levels, schools, CRs), in each dialect's own parameters.
      expect(shape("dnd-oracle").map((s) => s.replace(/,"(5|10)"\]$/, "]"))).toEqual(
        shape("lorekeeper").map((s) => s.replace(/,"(5|10)"\]$/, "]")),
      );
      const store = openStore({ path: ":memory:" });
      try {
        for (const c of [...peerMix("lorekeeper"), ...peerWarmup("lorekeeper")]) {
          const q = await captureQuery(
            { id: c.tool, tool: c.tool, args: c.args, mode: c.mode === "typo" ? "name" : c.mode },
            store.db,
          );
          expect(q, c.tool).toBeDefined();
          if (c.mode === "structured") expect(q!.name, c.tool).toBeUndefined();
          else expect(q!.name, c.tool).toBeTruthy();
        }
      } finally {
        store.close();
      }
      for (const m of ["structured", "name", "typo"])
        expect(peerMix("dnd-oracle").filter((c) => c.mode === m).length).toBeGreaterThanOrEqual(12);
    },
  );
});

describe("stats", () => {
  test("nearest-rank percentiles", () => {
    const xs = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(xs, 50)).toBe(5);
    expect(percentile(xs, 95)).toBe(10);
    expect(percentile(xs, 10)).toBe(1);
    expect(percentile([], 50)).toBeNaN();
    const s = summarize(xs);
    expect(s).toMatchObject({ n: 10, p50: 5, p99: 10, max: 10, mean: 5.5 });
  });
});
