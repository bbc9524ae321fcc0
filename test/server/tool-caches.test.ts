/**
 * What the tools do to answer fast must not change what they answer: the answer text assembled
 * from results serialized once (fitAnswer) is exactly the JSON of the structured answer, inside
 * or over the budget; what is remembered per store version (the data gate's non-empty kinds, the
 * list_documents rows) follows the store at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/client";
import { RESOURCE_URI_META_KEY, registerAppTool } from "@modelcontextprotocol/ext-apps/server";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { CARD_URIS } from "../../src/tools/answer/card-uris.ts";
import { toolListComputations } from "../../src/tools/tool-list.ts";
import { leanTools } from "../../src/tools/kit/lean-schema.ts";
import { TOOLS } from "../../src/tools/index.ts";
import type { Store } from "../../src/store/db.ts";
import { deleteOrigin, replaceOrigin } from "../../src/store/entities.ts";
import { DataGate } from "../../src/tools/kit/data-gate.ts";
import type { ToolDeps } from "../../src/tools/kit/deps.ts";
import { listDocumentsTool } from "../../src/tools/list-documents.ts";
import { fitAnswer } from "../../src/tools/answer/budget.ts";
import { flattenEntity, type SearchAnswer } from "../../src/tools/answer/response.ts";
import { makeEntity, makeStore } from "../support/entities.ts";
import { connectInMemory, makeDeps, TOOL_NAMES } from "../support/mcp.ts";

function answerWith(n: number, descLen: number, message?: string): SearchAnswer {
  const results = Array.from({ length: n }, (_, i) => {
    const e = makeEntity("creature", `Monster "${i}" é`, {}, { key: `m${i}` });
    e.data = {
      desc: `${"word ".repeat(descLen / 5)}\n\u2028`,
      actions: [{ name: "Bite", desc: "x".repeat(descLen * ((i % 3) + 1)) }],
      cr: i,
      tags: null,
    };
    return flattenEntity(e, i % 2 ? 0.5 : undefined);
  });
  return {
    results,
    count: n,
    total: n,
    offset: 0,
    has_more: false,
    detail: "full",
    search_mode: "hybrid",
    ...(message ? { message } : {}),
    metadata: { generated_at: "t", data_synced_at: null, sources: ["open5e_v2"] },
  };
}

describe("fitAnswer", () => {
  const cases: Array<[string, SearchAnswer, number]> = [
    ["fits as it is", answerWith(3, 100), 60_000],
    ["no results", answerWith(0, 0, "nothing"), 60_000],
    ["fields shortened", answerWith(5, 20_000, "a note"), 30_000],
    ["results dropped", answerWith(100, 2000), 8_000],
    ["not even one result fits", answerWith(3, 2000), 300],
  ];
  for (const [label, answer, budget] of cases) {
    test(`the text is the JSON of the answer: ${label}`, () => {
      const fitted = fitAnswer(answer, { budgetChars: budget });
      expect(fitted.text).toBe(JSON.stringify(fitted.answer));
      expect(fitted.answer).toEqual(fitAnswer(answer, { budgetChars: budget }).answer);
      if (fitted.answer.results.length > 0) expect(fitted.text.length).toBeLessThanOrEqual(budget);
    });
  }

  test("the cap chosen is the first that fits, whatever the strings " +
    "hold (quotes, controls, emoji cut in half, lone surrogates)", () => {
    // Reference: try each cap by serializing the whole shortened answer (what the budget did before).
    const CAPS = [16000, 8000, 4000, 2000, 1000, 500, 250, 120];
    const shorten = (v: unknown, cap: number): unknown => {
      if (typeof v === "string") {
        if (v.length <= cap) return v;
        const cut = v.slice(0, cap);
        const space = cut.lastIndexOf(" ");
        return `${space > cap * 0.7 ? cut.slice(0, space) : cut}… [truncated]`;
      }
      if (Array.isArray(v)) return v.map((x) => shorten(x, cap));
      if (v && typeof v === "object")
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shorten(x, cap)]));
      return v;
    };
    const RESERVED = new Set([
      "key",
      "name",
      "kind",
      "document_key",
      "document_name",
      "document_source",
      "source_url",
      "uri",
      "similarity_score",
    ]);
    const pieces = [
      '"',
      "\\",
      "\n",
      "\t",
      "\u0001",
      "\u001f",
      "😀",
      "\ud83d",
      "\ude00",
      "é",
      "\u2028",
      " ",
      "word",
      "lorem ipsum",
    ];
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const text = (n: number) => Array.from({ length: n }, () => pieces[Math.floor(rnd() * pieces.length)]).join("");
    let compared = 0;
    for (let t = 0; t < 200; t++) {
      const n = 1 + Math.floor(rnd() * 12);
      const answer = answerWith(n, 10);
      for (const r of answer.results) {
        r.desc = text(Math.floor(rnd() * 3000));
        r.actions = [{ name: "Bite", desc: text(Math.floor(rnd() * 1500)) }, text(200)];
      }
      const budget = 2000 + Math.floor(rnd() * 20_000);
      const fitted = fitAnswer(answer, { budgetChars: budget });
      expect(fitted.text).toBe(JSON.stringify(fitted.answer));
      if (!fitted.answer.truncated || fitted.answer.results.length < n) continue;
      const firstFit = CAPS.find((cap) => {
        const results = answer.results.map((r) =>
          Object.fromEntries(Object.entries(r).map(([k, v]) => [k, RESERVED.has(k) ? v : shorten(v, cap)])),
        );
        return JSON.stringify({ ...fitted.answer, results }).length <= budget;
      });
      const expected = answer.results.map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, RESERVED.has(k) ? v : shorten(v, firstFit!)])),
      );
      expect(fitted.answer.results).toEqual(expected as typeof fitted.answer.results);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
    // Pure CPU (200 answers against a reference that serializes each cap): 3 s alone, 9 s on busy cores.
  }, 60_000);

  test("an answer whose first key is not `results` gets the same text", () => {
    const a = answerWith(4, 3000);
    const { results, ...rest } = a;
    const shuffled = { ...rest, results } as SearchAnswer;
    const fitted = fitAnswer(shuffled, { budgetChars: 5_000 });
    expect(fitted.text).toBe(JSON.stringify(fitted.answer));
    expect(JSON.parse(fitted.text)).toEqual(JSON.parse(JSON.stringify(fitAnswer(a, { budgetChars: 5_000 }).answer)));
  });
});

describe("DataGate.emptyKinds", () => {
  let store: Store;
  let cleanup: () => void;
  beforeAll(() => {
    ({ store, cleanup } = makeStore());
  });
  afterAll(() => cleanup());

  test("follows the store: a kind emptied or filled is seen at once", () => {
    const deps: ToolDeps = {
      db: store.db,
      search: async () => ({ hits: [], total: 0, mode: "structured" }),
      responseBudgetChars: 60_000,
    };
    const gate = new DataGate(deps);
    expect(gate.emptyKinds(["spell", "feat"])).toEqual(["feat"]);
    expect(gate.emptyKinds(["spell", "feat"])).toEqual(["feat"]);
    replaceOrigin(store.db, "test:feats", [makeEntity("feat", "Alert", {})]);
    expect(gate.emptyKinds(["spell", "feat"])).toEqual([]);
    deleteOrigin(store.db, "test:feats");
    expect(gate.emptyKinds(["spell", "feat"])).toEqual(["feat"]);
    store.db.exec("DELETE FROM entities WHERE kind = 'spell'");
    expect(gate.emptyKinds(["spell", "feat"])).toEqual(["spell", "feat"]);
  });
});

describe("list_documents", () => {
  let store: Store;
  let cleanup: () => void;
  beforeAll(() => {
    ({ store, cleanup } = makeStore());
  });
  afterAll(() => cleanup());

  test("answers the same twice, and sees an import at once", async () => {
    const deps: ToolDeps = {
      db: store.db,
      search: async () => ({ hits: [], total: 0, mode: "structured" }),
      responseBudgetChars: 60_000,
    };
    const ctx = { deps, gate: new DataGate(deps), progress: () => {} };
    const docs = async (args: Record<string, unknown> = {}) =>
      (
        (await listDocumentsTool.call(args, ctx)).structuredContent as {
          documents: Array<{ key: string; entity_count: number }>;
        }
      ).documents;
    const first = await docs();
    expect(await docs()).toEqual(first);
    const count = (d: Array<{ key: string; entity_count: number }>, key: string) =>
      d.find((x) => x.key === key)?.entity_count ?? 0;
    expect(count(first, "fresh-pack")).toBe(0);
    replaceOrigin(store.db, "orcbrew:fresh", [
      makeEntity("feat", "Fresh Feat", {}, { doc: "fresh-pack", source: "orcbrew" }),
    ]);
    expect(count(await docs(), "fresh-pack")).toBe(1);
    expect(count(await docs({ source: "orcbrew" }), "fresh-pack")).toBe(1);
    expect(count(await docs({ source: "open5e_v2" }), "fresh-pack")).toBe(0);
    deleteOrigin(store.db, "orcbrew:fresh");
    expect(count(await docs(), "fresh-pack")).toBe(0);
  });
});

describe("tools/list", () => {
  let store: Store;
  let cleanup: () => void;
  beforeAll(() => {
    ({ store, cleanup } = makeStore());
  });
  afterAll(() => cleanup());

  test("every server (one per HTTP request) gives the same list; it is computed once per process", async () => {
    const lists: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await connectInMemory(makeDeps(store));
      try {
        lists.push(await c.client.listTools());
        expect(c.client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
      } finally {
        await c.close();
      }
    }
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
    expect((lists[0] as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    expect(toolListComputations()).toBe(1);
  });

  test(
    "the shared list is what the v2 SDK's McpServer itself lists for the same " +
      "zod schemas (Standard Schema; card tools through ext-apps' registerAppTool, " +
      "without its deprecated flat key), made lean (same constraints, less noise)",
    async () => {
      const plain = new McpServer({ name: "plain", version: "0" });
      for (const def of TOOLS) {
        const config = {
          title: def.title,
          description: def.description,
          inputSchema: def.input,
          outputSchema: def.output,
          annotations: def.annotations,
        };
        const card = CARD_URIS[def.name];
        // A tool with an MCP Apps card: registered as the ext-apps SDK registers one.
        if (card)
          registerAppTool(plain, def.name, { ...config, _meta: { ui: { resourceUri: card } } }, async () => ({
            content: [],
          }));
        else plain.registerTool(def.name, config, async () => ({ content: [] }));
      }
      const [a, b] = InMemoryTransport.createLinkedPair();
      await plain.connect(b);
      const client = new Client({ name: "t", version: "0" });
      await client.connect(a);
      const sdk = await client.listTools();
      await client.close();
      // registerAppTool also writes the deprecated flat key, which we leave out (tool-list.ts).
      for (const t of sdk.tools) if (t._meta) delete t._meta[RESOURCE_URI_META_KEY];
      // No task support is what an absent `execution` means, so ours leaves the SDK's default out.
      for (const t of sdk.tools) if (t.execution?.taskSupport === "forbidden") delete t.execution;
      const ours = await connectInMemory(makeDeps(store));
      try {
        // lean-schema.ts: the same tools and schemas without `$schema`, safe-integer bounds, empty
        // objects, `type` beside a string enum, input length limits and the default `execution`.
        expect((await ours.client.listTools()) as unknown).toEqual({ ...sdk, tools: leanTools(sdk.tools) });
        expect(JSON.stringify(await ours.client.listTools()).length).toBeLessThan(JSON.stringify(sdk).length);
      } finally {
        await ours.close();
      }
    },
  );
});
