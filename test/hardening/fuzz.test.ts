/**
 * argument fuzzing over MCP. A seeded generator (test/support/fuzz.ts) sends
 * thousands of tools/call requests (wrong types, out-of-range numbers, huge strings, unicode, SQL
 * and FTS5 syntax, wildcard abuse, unknown parameters, nulls, malformed envelopes) to every tool
 * of real `lorekeeper serve` processes, over stdio and over HTTP, with a real store and a
 * real (tiny) embedding model so the semantic path runs too.
 *
 * Every call must get a result whose structuredContent matches the declared outputSchema, or a
 * tool error naming the parameter / the problem (a malformed envelope: JSON-RPC -32602); never a
 * stack trace or driver error. Afterwards the process is alive, a normal query gives the expected
 * answer, and stderr shows no uncaught exception or logged internal error.
 *
 * LOREKEEPER_FUZZ_SEED=<n> reproduces a run; LOREKEEPER_FUZZ_CALLS=<n> sets the total (default 5,000).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import type { Entity } from "../../src/entities/types.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { embedAll } from "../search/helpers.ts";
import { sampleEntities } from "../support/entities.ts";
import { makeStore } from "../support/entities.ts";
import {
  emptyTally,
  type FuzzCase,
  fuzzCalls,
  fuzzSeed,
  leaks,
  makeCases,
  makeOracle,
  type Outcome,
  outcomeOfError,
  runCases,
  type Tally,
} from "../support/fuzz.ts";
import {
  answerOf,
  connectInMemory,
  connectStdio,
  isolatedEnv,
  makeDeps,
  namesOf,
  REPO_ROOT,
  TOOL_NAMES,
} from "../support/mcp.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";

const SEED = fuzzSeed();
const TOTAL = fuzzCalls(5000);
const STDIO_CALLS = Math.ceil(TOTAL / 2);
const HTTP_CALLS = TOTAL - STDIO_CALLS;
const CONCURRENCY = 8;

let tmp: ReturnType<typeof makeTempDir>;
let seedDb: string;
let modelDir: string;
const tallies: Record<string, Tally> = {};

/** A dead upstream (nothing listens), the tiny model, and no access to the user's folders. */
async function childEnv(name: string): Promise<Record<string, string>> {
  return {
    ...(await isolatedEnv(join(tmp.dir, name), modelDir)),
    LOREKEEPER_OFFLINE: "1",
    LOREKEEPER_LOG_LEVEL: "warn",
  };
}

function dbCopy(name: string): string {
  const path = join(tmp.dir, `${name}.db`);
  copyFileSync(seedDb, path);
  return path;
}

beforeAll(async () => {
  tmp = makeTempDir("lk-fuzz-");
  modelDir = await createTinyModel(join(tmp.dir, "tiny"));
  seedDb = join(tmp.dir, "seed.db");
  const store = openStore({ path: seedDb });
  const byOrigin = new Map<string, Entity[]>();
  for (const e of sampleEntities())
    byOrigin.set(`${e.document_source}:${e.kind}`, [...(byOrigin.get(`${e.document_source}:${e.kind}`) ?? []), e]);
  for (const [origin, list] of byOrigin) replaceOrigin(store.db, origin, list);
  const provider = createEmbedderProvider({
    modelDir,
    embeddedDir: null,
    allowDownload: false,
    cacheDir: join(tmp.dir, "cache"),
  });
  const embedder = await provider.get();
  if (!embedder) throw new Error(`tiny model did not load: ${provider.reason()}`);
  expect(await embedAll(store.db, embedder)).toBe(sampleEntities().length);
  store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  store.close();
  process.stderr.write(
    `[fuzz] seed ${SEED} (LOREKEEPER_FUZZ_SEED=${SEED} reproduces), ` +
      `${TOTAL} calls: ${STDIO_CALLS} over stdio, ${HTTP_CALLS} over HTTP\n`,
  );
}, 60_000);

afterAll(() => {
  const all = Object.entries(tallies);
  if (all.length > 0) {
    const line = (n: string, t: Tally) =>
      `${n}: ${t.calls} calls, ${t.results} results (${t.hybrid} hybrid), ${t.toolErrors} tool errors, ` +
      `${t.rpcErrors} JSON-RPC errors, ${t.failures.length} failures, slowest call ${t.slowest.toFixed(0)} ms`;
    const sum = all.reduce<Tally>(
      (a, [, t]) => ({
        calls: a.calls + t.calls,
        results: a.results + t.results,
        toolErrors: a.toolErrors + t.toolErrors,
        rpcErrors: a.rpcErrors + t.rpcErrors,
        hybrid: a.hybrid + t.hybrid,
        slowest: Math.max(a.slowest, t.slowest),
        failures: [...a.failures, ...t.failures],
      }),
      emptyTally(),
    );
    process.stderr.write(
      `[fuzz] seed ${SEED}\n${all.map(([n, t]) => `[fuzz] ${line(n, t)}`).join("\n")}\n[fuzz] ${line("total", sum)}\n`,
    );
  }
  tmp?.cleanup();
});

/** One tools/call with the raw params of `c` (no client-side checks), as an outcome. */
async function callRaw(client: Client, c: FuzzCase): Promise<Outcome> {
  try {
    const result = await client.request(
      { method: "tools/call", params: c.params as { name: string } },
      CallToolResultSchema,
      { timeout: 20_000 },
    );
    return { kind: "result", result };
  } catch (err) {
    return outcomeOfError(err);
  }
}

/** Shared checks after a fuzz run: counts, the mix of outcomes, no failure. */
function expectClean(name: string, t: Tally, n: number): void {
  tallies[name] = t;
  if (t.failures.length > 0) {
    process.stderr.write(
      `[fuzz] ${name}: ${t.failures.length} failures (seed ` +
        `${SEED}); first ones:\n${t.failures.slice(0, 15).join("\n")}\n`,
    );
  }
  expect(t.failures.slice(0, 5)).toEqual([]);
  expect(t.calls).toBe(n);
  // The generator must exercise both sides and the semantic path, or the run proves little.
  if (n >= 500) {
    expect(t.results).toBeGreaterThan(n * 0.15);
    expect(t.toolErrors).toBeGreaterThan(n * 0.15);
    expect(t.rpcErrors).toBeGreaterThan(0);
    expect(t.hybrid).toBeGreaterThan(n * 0.03);
  }
}

/** After the storm: the same server still gives the expected answers, exact and semantic. */
async function expectNormalAnswers(client: Client): Promise<void> {
  expect(
    namesOf(await client.callTool({ name: "search_spell", arguments: { name: "Fireball", documents: ["srd-2014"] } })),
  ).toEqual(["Fireball"]);
  expect(namesOf(await client.callTool({ name: "search_creature", arguments: { cr: "1/4" } }))).toEqual([
    "Goblin",
    "Zombie",
  ]);
  const semantic = answerOf(
    await client.callTool({
      name: "search_all",
      arguments: { query: "undead that drain life", content_types: ["Creature"] },
    }),
  );
  expect(semantic.search_mode).toBe("hybrid");
  expect(semantic.results.slice(0, 3).map((r) => r.name)).toContain("Wraith");
  const docs = (await client.callTool({ name: "list_documents", arguments: {} })).structuredContent as {
    count: number;
  };
  expect(docs.count).toBe(4);
  const enc = (
    await client.callTool({
      name: "build_encounter",
      arguments: { party_levels: [5, 5, 5, 5], edition: "2014", monsters: [{ name: "Goblin", count: 6 }] },
    })
  ).structuredContent as { rating: { total_xp: number; adjusted_xp: number } };
  expect(enc.rating).toMatchObject({ total_xp: 300, adjusted_xp: 600 });
}

/** stderr of a fuzzed server: warnings are fine; crashes, uncaught errors and internal errors are not. */
function expectQuietStderr(err: string): void {
  const bad = err
    .split("\n")
    .filter((l) => /\bERROR\b|Uncaught|Unhandled|panic|Segmentation fault|^\s+at\s|^error: |^\w*Error: /.test(l));
  expect(bad.slice(0, 5)).toEqual([]);
}

let tools: Tool[] = [];

describe("argument fuzzing over MCP", () => {
  test(`stdio: ${STDIO_CALLS} fuzzed calls to a spawned \`lorekeeper serve\``, async () => {
    const conn = await connectStdio(["serve", "--db-path", dbCopy("stdio")], await childEnv("stdio"));
    try {
      tools = (await conn.client.listTools()).tools;
      expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
      const cases = makeCases(tools, SEED, STDIO_CALLS);
      const tally = await runCases(cases, (c) => callRaw(conn.client, c), makeOracle(tools), CONCURRENCY);
      const pid = conn.transport.pid;
      expect(pid).not.toBeNull();
      expect(() => process.kill(pid!, 0)).not.toThrow(); // still alive
      await expectNormalAnswers(conn.client);
      expectClean("stdio", tally, STDIO_CALLS);
    } finally {
      await conn.close();
    }
    expectQuietStderr(conn.stderr());
  }, 120_000);

  test(`HTTP: ${HTTP_CALLS} fuzzed calls to a spawned \`lorekeeper serve --http\``, async () => {
    const proc = Bun.spawn(
      [
        process.execPath,
        join(REPO_ROOT, "src/cli/main.ts"),
        "serve",
        "--http",
        "--port",
        "0",
        "--db-path",
        dbCopy("http"),
      ],
      {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, ...(await childEnv("http")) },
      },
    );
    let err = "";
    const decoder = new TextDecoder();
    const drained = (async () => {
      for await (const chunk of proc.stderr) err += decoder.decode(chunk);
    })();
    const deadline = Date.now() + 20_000;
    let url = "";
    while (!url && Date.now() < deadline && proc.exitCode === null) {
      await Bun.sleep(50);
      url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)?.[1] ?? "";
    }
    expect(url).not.toBe("");
    // Several clients, each with requests in flight, like several assistants sharing one server.
    const clients = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = new Client({ name: "lorekeeper-fuzz", version: "0.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        return client;
      }),
    );
    try {
      if (tools.length === 0) tools = (await clients[0]!.listTools()).tools;
      const cases = makeCases(tools, SEED ^ 0x9e3779b9, HTTP_CALLS);
      const tally = await runCases(
        cases,
        (c) => callRaw(clients[c.id % clients.length]!, c),
        makeOracle(tools),
        CONCURRENCY,
      );
      expect(proc.exitCode).toBeNull(); // still alive
      expect((await fetch(url.replace(/\/mcp$/, "/health"))).status).toBe(200);
      await expectNormalAnswers(clients[0]!);
      expectClean("http", tally, HTTP_CALLS);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    await drained;
    expect(await new Response(proc.stdout).text()).toBe("");
    expectQuietStderr(err);
  }, 120_000);
});

describe("the fuzzer itself", () => {
  let listed: Tool[] = [];
  beforeAll(async () => {
    const made = makeStore();
    const { client, close } = await connectInMemory(makeDeps(made.store));
    listed = (await client.listTools()).tools;
    await close();
    made.cleanup();
  });

  test("cases are deterministic per seed, cover every tool, and never contain what the oracle calls a leak", () => {
    const a = makeCases(listed, 42, 3000);
    expect(JSON.stringify(makeCases(listed, 42, 3000))).toBe(JSON.stringify(a));
    expect(JSON.stringify(makeCases(listed, 43, 3000))).not.toBe(JSON.stringify(a));
    expect(new Set(a.map((c) => c.tool)).size).toBeGreaterThanOrEqual(7);
    expect(a.filter((c) => c.expect === "invalid-params").length).toBeGreaterThan(30);
    expect(a.filter((c) => c.unknownKeys.length > 0).length).toBeGreaterThan(100);
    const leaky = a.filter((c) => leaks(JSON.stringify(c.params)) !== undefined).map((c) => c.id);
    expect(leaky).toEqual([]);
  }, 30_000);

  test("the oracle accepts good answers and rejects leaks, vague errors, wrong shapes and protocol errors", () => {
    const oracle = makeOracle(listed);
    const args = (tool: string, a: Record<string, unknown>, unknownKeys: string[] = []): FuzzCase => ({
      id: 0,
      tool,
      params: { name: tool, arguments: a },
      expect: "answer",
      unknownKeys,
    });
    const text = (t: string, isError = true): Outcome => ({
      kind: "result",
      result: { content: [{ type: "text", text: t }], isError },
    });
    const answer = {
      results: [],
      count: 0,
      total: 0,
      offset: 0,
      has_more: false,
      detail: "summary",
      search_mode: "structured",
      metadata: { generated_at: "2024-01-01T00:00:00.000Z", data_synced_at: null, sources: [] },
    };
    const ok: Outcome = {
      kind: "result",
      result: { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer },
    };
    const spell = args("search_spell", { level: 3 });
    expect(oracle.check(spell, ok)).toBeUndefined();
    expect(
      oracle.check(
        spell,
        text(
          "Invalid arguments for search_spell:\n- level: must be at most 9 " +
            '(got 12).\n- limit: expected a whole number, got the string "x".',
        ),
      ),
    ).toBeUndefined();
    expect(oracle.check(spell, text("Invalid arguments for search_spell:\n- something went wrong."))).toContain(
      "names no parameter",
    );
    expect(
      oracle.check(spell, text("TypeError: undefined is not an object\n    at run (/work/src/tools/x.ts:3:9)")),
    ).toContain("leaks");
    expect(
      oracle.check(spell, text("search_spell failed because of an internal error (details are in the server log).")),
    ).toContain("leaks");
    expect(oracle.check(spell, text('SQLITE_ERROR: fts5: syntax error near "*"'))).toContain("leaks");
    expect(oracle.check(spell, { kind: "rpc-error", code: -32603, message: "boom" })).toContain("instead of a result");
    expect(oracle.check(spell, { kind: "transport-error", message: "socket hang up" })).toContain("transport failure");
    const { total: _total, ...badShape } = answer;
    expect(
      oracle.check(spell, {
        kind: "result",
        result: { content: [{ type: "text", text: JSON.stringify(badShape) }], structuredContent: badShape },
      }),
    ).toContain("outputSchema");
    expect(oracle.check(args("search_spell", { search: "fire" }), ok)).toContain("structured mode");
    expect(oracle.check(args("search_spell", { bogus: 1 }, ["bogus"]), ok)).toContain("accepted");
    const envelope: FuzzCase = {
      id: 1,
      tool: "search_spell",
      params: { name: "search_spell", arguments: "x" },
      expect: "invalid-params",
      unknownKeys: [],
    };
    expect(
      oracle.check(envelope, {
        kind: "rpc-error",
        code: -32602,
        message: 'Invalid arguments for search_spell: arguments must be an object (got the string "x").',
      }),
    ).toBeUndefined();
    expect(
      oracle.check(envelope, { kind: "rpc-error", code: -32603, message: '[{"code": "invalid_type"}]' }),
    ).toBeDefined();
    expect(oracle.check(envelope, ok)).toContain("answered with a result");
  });
});

describe("found by fuzzing (regressions)", () => {
  test(
    "an unreachable upstream on first use: answer from the " + "kinds the store holds, fail only when it holds none",
    async () => {
      const made = makeStore(sampleEntities().filter((e) => e.kind === "spell" || e.kind === "creature"));
      const ensureData = async () => {
        throw Object.assign(new Error("Open5e at http://127.0.0.1:9 is unreachable"), { name: "DataUnavailableError" });
      };
      const { client, close } = await connectInMemory(makeDeps(made.store, { ensureData }));
      try {
        const all = answerOf(await client.callTool({ name: "search_all", arguments: { query: "fire" } }));
        expect(all.results.length).toBeGreaterThan(0);
        expect(all.results.every((r) => r.kind === "spell" || r.kind === "creature")).toBe(true);
        expect(all.message).toContain(
          "could not be reached to download it, so these results come from the other types only",
        );
        const none = await client.callTool({ name: "search_character_option", arguments: { name: "Wizard" } });
        expect(none.isError).toBe(true);
        expect(JSON.stringify(none.content)).toContain("unreachable");
      } finally {
        await close();
        made.cleanup();
      }
    },
  );

  test("huge inputs are never echoed whole in errors; malformed envelopes get -32602", async () => {
    const made = makeStore();
    const { client, close } = await connectInMemory(makeDeps(made.store));
    try {
      const huge = "*".repeat(100_000);
      const calls: Array<[string, Record<string, unknown>]> = [
        ["search_character_option", { type: huge }],
        ["search_creature", { cr: huge }],
        ["search_spell", { [huge]: 1 }],
      ];
      for (const [name, args] of calls) {
        const r = await client.callTool({ name, arguments: args });
        expect(r.isError).toBe(true);
        const text = JSON.stringify(r.content);
        expect(text.length).toBeLessThan(1500);
        expect(text).toMatch(/\(1000\d\d characters\)/);
      }
      const bad = await client
        .request(
          { method: "tools/call", params: { name: "search_spell", arguments: "Fireball" } as never },
          CallToolResultSchema,
        )
        .catch((e: unknown) => e as { code: number; message: string });
      expect((bad as { code: number }).code).toBe(-32602);
      expect((bad as { message: string }).message).toContain("arguments must be an object of named parameters");
    } finally {
      await close();
      made.cleanup();
    }
  });
});
