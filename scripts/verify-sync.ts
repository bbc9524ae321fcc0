#!/usr/bin/env bun
/**
 * Optional check (not part of `bun test`): issue 2's "done when". Serves a data tree in the API
 * layout (default /work/shared/data) with the fake upstream on 127.0.0.1, runs the default sync
 * (Open5e v2 + the dnd5eapi rules, rule sections and proficiencies; no embedding) into a throw-away
 * store, and checks per upstream endpoint that every record key is stored, that the stored count
 * equals the upstream count (Open5e: `open5e/_meta/counts.json`), and that nothing is stored twice.
 * Then syncs again and checks that no request reached the upstream (everything fresh).
 *
 *   bun scripts/verify-sync.ts [data-dir]        exit 0 = all good, 1 = a mismatch
 *
 * Endpoint → stored entities (origin = `<source>:<content type id>`):
 *   v2/<ep>            origin open5e_v2:<ep>, all kinds           (spells, creatures, classes, ...)
 *   v2/items           origin open5e_v2:items, all kinds; an item is found by key or data.item_key
 *   v2/weapons, armor  origin open5e_v2:items, kind weapon / armor (joined into items)
 *   v2/rulesets        origin open5e_v2:rulesets, kind rule_section
 *   v2/rules           origin open5e_v2:rulesets, kind rule (the rulesets' embedded rules)
 *   dnd5eapi/<y>/<ep>  origin dnd5e_api:<y>/<ep>, keys `<y>-<index>`
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import type { EntityKind } from "../src/entities/types.ts";
import { originOf, planSync, runSync } from "../src/ingest/sync.ts";
import { openStore } from "../src/store/db.ts";
import { startFakeUpstream } from "../test/support/fake-upstream.ts";
import { makeTempDir } from "../test/support/tmp.ts";

type Rec = { [k: string]: unknown };

interface Check {
  /** "v2/items", "dnd5eapi/2014/rules" */
  endpoint: string;
  file: string;
  origin: string;
  /** null = every kind of the origin */
  kinds: EntityKind[] | null;
  expected: number;
  /** upstream key → stored key */
  keyOf: (r: Rec) => string | null;
  /** items: an upstream key may be stored as data.item_key */
  byItemKey?: boolean;
}

interface Row {
  endpoint: string;
  expected: number;
  stored: number;
  missing: string[];
  duplicated: string[];
}

const dataDir = process.argv[2] ?? "/work/shared/data";
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));
const records = (path: string): Rec[] => (existsSync(path) ? (readJson(path) as Rec[]) : []);
const counts = readJson(join(dataDir, "open5e/_meta/counts.json")) as Record<string, { total: number }>;
const str = (x: unknown) => (typeof x === "string" && x ? x : null);

/** What each planned content type must contain (see the header). */
function checksFor(plan: ReturnType<typeof planSync>): Check[] {
  const out: Check[] = [];
  for (const t of plan) {
    const origin = originOf(t);
    if (t.source === "open5e_v2") {
      const v2 = (endpoint: string, kinds: EntityKind[] | null, byItemKey = false): Check => ({
        endpoint: `v2/${endpoint}`,
        file: join(dataDir, "open5e/v2", `${endpoint}.json`),
        origin,
        kinds,
        expected: counts[`v2/${endpoint}`]?.total ?? NaN,
        keyOf: (r) => str(r.key),
        byItemKey,
      });
      if (t.endpoint === "items") out.push(v2("items", null, true), v2("weapons", ["weapon"]), v2("armor", ["armor"]));
      else if (t.endpoint === "rulesets") out.push(v2("rulesets", ["rule_section"]), v2("rules", ["rule"]));
      else out.push(v2(t.endpoint, null));
    } else if (t.source === "dnd5e_api") {
      const year = t.year ?? "2014";
      const file = join(dataDir, "dnd5eapi", year, `${t.endpoint}.json`);
      out.push({ endpoint: `dnd5eapi/${year}/${t.endpoint}`, file, origin, kinds: null, expected: records(file).length, keyOf: (r) => (str(r.index) ? `${year}-${r.index}` : null) });
    }
  }
  return out;
}

function verify(db: ReturnType<typeof openStore>["db"], c: Check): Row {
  const kindSql = c.kinds ? ` AND kind IN (${c.kinds.map(() => "?").join(",")})` : "";
  const params = [c.origin, ...(c.kinds ?? [])];
  const stored = db.query(`SELECT kind, key, json_extract(data, '$.item_key') AS item_key FROM entities WHERE origin = ?${kindSql}`).all(...params) as {
    kind: string;
    key: string;
    item_key: string | null;
  }[];
  // how many stored entities each upstream key resolves to
  const hits = new Map<string, number>();
  const bump = (k: string | null) => k && hits.set(k, (hits.get(k) ?? 0) + 1);
  for (const e of stored) {
    bump(e.key);
    if (c.byItemKey && e.item_key && e.item_key !== e.key) bump(e.item_key);
  }
  const upstream = records(c.file).map(c.keyOf);
  const missing = upstream.filter((k): k is string => !k || !hits.has(k)).map((k) => k ?? "(no key)");
  const duplicated = upstream.filter((k): k is string => !!k && (hits.get(k) ?? 0) > 1);
  // and nothing stored twice under one (kind, key)
  const twice = db.query(`SELECT kind, key, count(*) AS n FROM entities WHERE origin = ?${kindSql} GROUP BY kind, key HAVING n > 1`).all(...params) as { kind: string; key: string }[];
  duplicated.push(...twice.map((x) => `${x.kind}:${x.key}`));
  return { endpoint: c.endpoint, expected: c.expected, stored: stored.length, missing, duplicated };
}

function table(rows: Row[]): string {
  const head = ["endpoint", "expected", "stored", "missing", "duplicated", ""];
  const body = rows.map((r) => {
    const bad = r.stored !== r.expected || r.missing.length > 0 || r.duplicated.length > 0;
    return [r.endpoint, String(r.expected), String(r.stored), String(r.missing.length), String(r.duplicated.length), bad ? "MISMATCH" : "ok"];
  });
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join(" | ").trimEnd();
  return [line(head), w.map((n) => "-".repeat(n)).join("-|-"), ...body.map(line)].join("\n");
}

async function main(): Promise<number> {
  const fake = await startFakeUpstream({ dataDir });
  const tmp = makeTempDir("lk-verify-sync-");
  const store = openStore({ path: join(tmp.dir, "lk.db") });
  try {
    const config = { ...loadConfig(), open5eBaseUrl: fake.url, dnd5eApiBaseUrl: fake.url };
    const plan = planSync({});
    const t0 = performance.now();
    const first = await runSync(store, { config });
    const seconds = (performance.now() - t0) / 1000;
    const rows = checksFor(plan).map((c) => verify(store.db, c));

    const problems: string[] = [];
    for (const r of first.results) {
      if (r.status !== "ok") problems.push(`${r.source} ${r.contentType}: status ${r.status}${r.error ? ` (${r.error})` : ""}`);
    }
    // (kind, key) unique per source over the whole store, not only per origin
    const dupKinds = store.db.query("SELECT document_source, kind, count(*) - count(DISTINCT key) AS d FROM entities GROUP BY document_source, kind HAVING d > 0").all() as { document_source: string; kind: string; d: number }[];
    for (const d of dupKinds) problems.push(`${d.document_source} ${d.kind}: ${d.d} duplicate keys`);
    for (const r of rows) {
      if (r.stored !== r.expected) problems.push(`${r.endpoint}: expected ${r.expected}, stored ${r.stored}`);
      if (r.missing.length) problems.push(`${r.endpoint}: missing ${r.missing.slice(0, 10).join(", ")}${r.missing.length > 10 ? ", ..." : ""}`);
      if (r.duplicated.length) problems.push(`${r.endpoint}: duplicated ${r.duplicated.slice(0, 10).join(", ")}`);
    }

    const before = fake.requests.length;
    const second = await runSync(store, { config });
    const newRequests = fake.requests.length - before;
    const notFresh = second.results.filter((r) => r.status !== "fresh");
    if (newRequests !== 0) problems.push(`second sync sent ${newRequests} request(s): ${fake.requests.slice(before, before + 5).map((q) => q.path).join(", ")}`);
    if (notFresh.length) problems.push(`second sync: not fresh: ${notFresh.map((r) => r.contentType).join(", ")}`);

    const total = (store.db.query("SELECT count(*) AS n FROM entities").get() as { n: number }).n;
    console.log(table(rows));
    console.log(
      `\nfirst sync: ${first.results.length} content types, ${first.records} entities (${total} in store), ${first.requests} requests, ` +
        `${seconds.toFixed(2)} s wall, ${Math.round(first.records / seconds)} records/s`,
    );
    const warnings = first.results.flatMap((r) => r.warnings.map((w) => `${r.contentType}: ${w}`));
    if (warnings.length) console.log(`warnings: ${warnings.join("; ")}`);
    console.log(`second sync: ${second.results.length} content types fresh=${second.results.length - notFresh.length}, ${newRequests} upstream requests, ${second.durationMs} ms`);
    if (problems.length) {
      console.log(`\nFAILED (${problems.length}):\n  ${problems.join("\n  ")}`);
      return 1;
    }
    console.log("\nOK: every record stored once, counts match, second sync sent no requests.");
    return 0;
  } finally {
    store.close();
    await fake.stop();
    tmp.cleanup();
  }
}

process.exit(await main());
