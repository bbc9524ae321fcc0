#!/usr/bin/env bun
/**
 * Optional check (not part of `bun test`): the default sync is complete. Serves a data tree in the API
 * layout (default ../shared/data beside the checkout) with the fake upstream on 127.0.0.1, runs the default sync
 * (Open5e v2 + the dnd5eapi rules, rule sections and proficiencies; no embedding) into a throw-away
 * store, and accounts per upstream endpoint by RECORDS, not by entity kind:
 *   - every record of the endpoint is represented by exactly one stored entity (see below);
 *   - the number of records found equals the upstream count (Open5e: `open5e/_meta/counts.json`
 *     `total`; dnd5eapi: the file's length);
 *   - no entity is stored twice (per source and kind: count(*) = count(distinct key)), and every
 *     entity of an origin stands for some record of one of its endpoints (nothing unaccounted).
 * Then syncs again and checks that no request reached the upstream (everything fresh).
 *
 *   bun scripts/verify-sync.ts [data-dir]        exit 0 = all good, 1 = a mismatch
 *
 * Endpoint → the entity that represents a record (origin = `<source>:<content type id>`):
 *   v2/<ep>            origin open5e_v2:<ep>, any kind, by key   (spells, creatures, classes, ...)
 *   v2/items           origin open5e_v2:items: an item / magic_item by its key, a weapon / armor by
 *                      data.item_key (an item that IS a weapon/armor is stored under the weapon/armor
 *                      key; srd_shield, with no armor record, is armor with key = item_key)
 *   v2/weapons, armor  origin open5e_v2:items, kind weapon / armor, by the endpoint key
 *   v2/rulesets        origin open5e_v2:rulesets, kind rule_section, by key
 *   v2/rules           origin open5e_v2:rulesets, kind rule (the rulesets' embedded rules), by key
 *   dnd5eapi/<y>/<ep>  origin dnd5e_api:<y>/<ep>, any kind, by key `<y>-<index>`
 * One entity may stand for a record of several endpoints (the weapon srd_longsword is the
 * /v2/weapons/ record and the /v2/items/ record srd_longsword), never for two records of one.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import type { EntityKind } from "../src/entities/types.ts";
import { originOf, planSync, runSync } from "../src/ingest/sync.ts";
import { openStore } from "../src/store/db.ts";
import { startFakeUpstream } from "../test/support/fake-upstream.ts";
import { makeTempDir } from "../test/support/tmp.ts";
import { SHARED_DATA } from "./shared-dir.ts";
import { upstreamsAt } from "../src/sources/index.ts";

type Rec = { [k: string]: unknown };
type Db = ReturnType<typeof openStore>["db"];

/** A stored entity as the accounting sees it. */
interface Stored {
  kind: EntityKind;
  key: string;
  item_key: string | null;
}

interface Check {
  /** "v2/items", "dnd5eapi/2014/rules" */
  endpoint: string;
  file: string;
  origin: string;
  /** the upstream count the records must add up to */
  expected: number;
  /** upstream record → its key as the store spells it */
  keyOf: (r: Rec) => string | null;
  /** the record key(s) of this endpoint a stored entity stands for */
  represents: (e: Stored) => string[];
}

interface Row {
  endpoint: string;
  expected: number;
  /** records in the upstream file */
  records: number;
  /** records represented by exactly one entity */
  found: number;
  missing: string[];
  /** records represented by more than one entity, or listed twice upstream */
  multiple: string[];
}

const dataDir = process.argv[2] ?? SHARED_DATA;
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));
const records = (path: string): Rec[] => (existsSync(path) ? (readJson(path) as Rec[]) : []);
const counts = readJson(join(dataDir, "open5e/_meta/counts.json")) as Record<string, { total: number }>;
const str = (x: unknown) => (typeof x === "string" && x ? x : null);
/** v2 key, or (2025 shape) the last path segment of `url` */
const v2Key = (r: Rec) => str(r.key) ?? str(r.url)?.replace(/\/+$/, "").split("/").pop() ?? null;

const byKey = (kinds: EntityKind[] | null) => (e: Stored) => (!kinds || kinds.includes(e.kind) ? [e.key] : []);
/** /v2/items/: a weapon/armor entity stands for the item it is sold as, any other entity for its key. */
const itemRecord = (e: Stored) =>
  e.kind === "weapon" || e.kind === "armor" ? (e.item_key ? [e.item_key] : []) : [e.key];

/** What each planned content type must contain (see the header). */
function checksFor(plan: ReturnType<typeof planSync>): Check[] {
  const out: Check[] = [];
  for (const t of plan) {
    const origin = originOf(t);
    if (t.source === "open5e_v2") {
      const v2 = (endpoint: string, represents: Check["represents"]): Check => ({
        endpoint: `v2/${endpoint}`,
        file: join(dataDir, "open5e/v2", `${endpoint}.json`),
        origin,
        expected: counts[`v2/${endpoint}`]?.total ?? NaN,
        keyOf: v2Key,
        represents,
      });
      if (t.endpoint === "items")
        out.push(v2("items", itemRecord), v2("weapons", byKey(["weapon"])), v2("armor", byKey(["armor"])));
      else if (t.endpoint === "rulesets")
        out.push(v2("rulesets", byKey(["rule_section"])), v2("rules", byKey(["rule"])));
      else out.push(v2(t.endpoint, byKey(null)));
    } else if (t.source === "dnd5e_api") {
      const year = t.year ?? "2014";
      const file = join(dataDir, "dnd5eapi", year, `${t.endpoint}.json`);
      const keyOf = (r: Rec) => (str(r.index) ? `${year}-${r.index}` : null);
      out.push({
        endpoint: `dnd5eapi/${year}/${t.endpoint}`,
        file,
        origin,
        expected: records(file).length,
        keyOf,
        represents: byKey(null),
      });
    }
  }
  return out;
}

function storedIn(db: Db, origin: string): Stored[] {
  return db
    .query("SELECT kind, key, json_extract(data, '$.item_key') AS item_key FROM entities WHERE origin = ?")
    .all(origin) as Stored[];
}

/** Account one endpoint's records against the entities of its origin. */
function verify(stored: Stored[], c: Check): Row {
  const hits = new Map<string, number>();
  for (const e of stored) for (const k of new Set(c.represents(e))) hits.set(k, (hits.get(k) ?? 0) + 1);
  const upstream = records(c.file).map(c.keyOf);
  const listed = new Map<string, number>();
  for (const k of upstream) if (k) listed.set(k, (listed.get(k) ?? 0) + 1);
  const missing = upstream.filter((k) => !k || !hits.has(k)).map((k) => k ?? "(no key)");
  const multiple = [...listed]
    .filter(([k, n]) => n > 1 || (hits.get(k) ?? 0) > 1)
    .map(([k, n]) => `${k} (listed ${n}x upstream, ${hits.get(k) ?? 0} entities)`);
  const found = upstream.filter((k) => k && listed.get(k) === 1 && hits.get(k) === 1).length;
  return { endpoint: c.endpoint, expected: c.expected, records: upstream.length, found, missing, multiple };
}

/** Entities of an origin that stand for no record of any of its endpoints. */
function unaccounted(stored: Stored[], checks: Check[]): string[] {
  const keys = checks.map(
    (c) =>
      new Set(
        records(c.file)
          .map(c.keyOf)
          .filter((k): k is string => !!k),
      ),
  );
  return stored
    .filter((e) => !checks.some((c, i) => c.represents(e).some((k) => keys[i]!.has(k))))
    .map((e) => `${e.kind}:${e.key}`);
}

const bad = (r: Row) =>
  r.records !== r.expected || r.found !== r.expected || r.missing.length > 0 || r.multiple.length > 0;

function table(rows: Row[]): string {
  const head = ["endpoint", "expected", "records", "found once", "missing", "multiple", ""];
  const body = rows.map((r) => [
    r.endpoint,
    String(r.expected),
    String(r.records),
    String(r.found),
    String(r.missing.length),
    String(r.multiple.length),
    bad(r) ? "MISMATCH" : "ok",
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(w[i]!) : c.padStart(w[i]!)))
      .join(" | ")
      .trimEnd();
  return [line(head), w.map((n) => "-".repeat(n)).join("-|-"), ...body.map(line)].join("\n");
}

async function main(): Promise<number> {
  const fake = await startFakeUpstream({ dataDir });
  const tmp = makeTempDir("lk-verify-sync-");
  const store = openStore({ path: join(tmp.dir, "lk.db") });
  try {
    const config = { ...loadConfig(), ...upstreamsAt(fake.url) };
    const plan = planSync({});
    const t0 = performance.now();
    const first = await runSync(store, { config });
    const seconds = (performance.now() - t0) / 1000;
    const checks = checksFor(plan);
    const origins = [...new Set(checks.map((c) => c.origin))];
    const storedBy = new Map(origins.map((o) => [o, storedIn(store.db, o)]));
    const rows = checks.map((c) => verify(storedBy.get(c.origin)!, c));

    const problems: string[] = [];
    for (const r of first.results) {
      if (r.status !== "ok")
        problems.push(`${r.source} ${r.contentType}: status ${r.status}${r.error ? ` (${r.error})` : ""}`);
    }
    // (kind, key) unique per source over the whole store, not only per origin
    const dupKinds = store.db
      .query(
        "SELECT document_source, kind, count(*) - count(DISTINCT key) " +
          "AS d FROM entities GROUP BY document_source, kind HAVING d > 0",
      )
      .all() as { document_source: string; kind: string; d: number }[];
    for (const d of dupKinds) problems.push(`${d.document_source} ${d.kind}: ${d.d} duplicate keys`);
    // and per origin: no (kind, key) twice, no entity that stands for no record
    const stray: string[] = [];
    for (const o of origins) {
      const twice = store.db
        .query("SELECT kind, key, count(*) AS n FROM entities WHERE origin = ? GROUP BY kind, key HAVING n > 1")
        .all(o) as { kind: string; key: string; n: number }[];
      for (const x of twice) problems.push(`${o}: ${x.kind}:${x.key} stored ${x.n} times`);
      const extra = unaccounted(
        storedBy.get(o)!,
        checks.filter((c) => c.origin === o),
      );
      stray.push(...extra);
      if (extra.length)
        problems.push(
          `${o}: ${extra.length} entities stand for no upstream record: ` +
            `${extra.slice(0, 10).join(", ")}${extra.length > 10 ? ", ..." : ""}`,
        );
    }
    const list = (xs: string[]) => `${xs.slice(0, 10).join(", ")}${xs.length > 10 ? ", ..." : ""}`;
    for (const r of rows) {
      if (r.records !== r.expected)
        problems.push(`${r.endpoint}: upstream count ${r.expected}, but the file has ${r.records} records`);
      if (r.found !== r.expected)
        problems.push(`${r.endpoint}: expected ${r.expected} records, found ${r.found} exactly once`);
      if (r.missing.length) problems.push(`${r.endpoint}: missing ${list(r.missing)}`);
      if (r.multiple.length) problems.push(`${r.endpoint}: listed or stored more than once: ${list(r.multiple)}`);
    }

    const before = fake.requests.length;
    const second = await runSync(store, { config });
    const newRequests = fake.requests.length - before;
    const notFresh = second.results.filter((r) => r.status !== "fresh");
    if (newRequests !== 0)
      problems.push(
        `second sync sent ${newRequests} request(s): ${fake.requests
          .slice(before, before + 5)
          .map((q) => q.path)
          .join(", ")}`,
      );
    if (notFresh.length) problems.push(`second sync: not fresh: ${notFresh.map((r) => r.contentType).join(", ")}`);

    const total = (store.db.query("SELECT count(*) AS n FROM entities").get() as { n: number }).n;
    console.log(table(rows));
    const entities = [...storedBy.values()].reduce((n, xs) => n + xs.length, 0);
    console.log(`\nentities of these origins: ${entities}, standing for no record: ${stray.length}`);
    console.log(
      `\nfirst sync: ${first.results.length} content types, ${first.records} ` +
        `entities (${total} in store), ${first.requests} requests, ` +
        `${seconds.toFixed(2)} s wall, ${Math.round(first.records / seconds)} records/s`,
    );
    const warnings = first.results.flatMap((r) => r.warnings.map((w) => `${r.contentType}: ${w}`));
    if (warnings.length) console.log(`warnings: ${warnings.join("; ")}`);
    console.log(
      `second sync: ${second.results.length} content types fresh=${second.results.length - notFresh.length}, ` +
        `${newRequests} upstream requests, ${second.durationMs} ms`,
    );
    if (problems.length) {
      console.log(`\nFAILED (${problems.length}):\n  ${problems.join("\n  ")}`);
      return 1;
    }
    console.log(
      "\nOK: every record found exactly once, counts match, nothing " +
        "stored twice or unaccounted, second sync sent no requests.",
    );
    return 0;
  } finally {
    store.close();
    await fake.stop();
    tmp.cleanup();
  }
}

process.exit(await main());
