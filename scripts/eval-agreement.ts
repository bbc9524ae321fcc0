#!/usr/bin/env bun
/**
 * The agreement audit: SRD 5.1 content as transcribed by Open5e v2 (`srd-2014`), Open5e v1 and the
 * D&D 5e API (2014), compared field by field (src/entities/agreement.ts) over a store synced from all
 * three. Reports per kind: things checked (held by ≥ 2 sources), fields checked, agreeing, corrected
 * (two sources against one: the majority answers, corrections/srd-2014.json), and unresolved (all
 * differ, only two disagree, or texts that differ), with the unresolved listed for review.
 *
 *   bun scripts/eval-agreement.ts --store FILE [--write] [--list N]
 *
 * `bun run eval` runs it after syncing the three sources (see eval.ts); --write rewrites the
 * corrections file from the current data (review the diff before committing it).
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  AUDIT_KINDS,
  type AuditKind,
  compareMembers,
  type FieldVerdict,
  type Member,
} from "../src/entities/agreement.ts";
import {
  CORRECTIONS_PATH,
  type Correction,
  correctionsFor,
  KEPT,
  type KeptValue,
  setPath,
} from "../src/entities/corrections/apply.ts";
import type { Entity, JsonObject } from "../src/entities/types.ts";
import { upstreamsAt } from "../src/sources/index.ts";

/** The API sources whose values the agreement audit compares (homebrew has no second opinion). */
const AUDITED_SOURCES = ["open5e_v2", "open5e_v1", "dnd5e_api"] as const;

export interface KindAudit {
  kind: AuditKind;
  things: number;
  fields: number;
  agree: number;
  corrected: number;
  /** majority verdicts a review found wrong: the minority source keeps its value (the file's "kept") */
  kept: number;
  unresolved: number;
}

export interface AuditResult {
  kinds: KindAudit[];
  corrections: Correction[];
  unresolved: Array<{ kind: AuditKind; name: string; verdict: FieldVerdict }>;
}

/**
 * The record as its upstream wrote it: a store holds corrected values (stated in upstream_notes);
 * the audit compares what each source says, so a corrected field gets its source's own value back.
 */
function asTranscribed(source: string, kind: string, key: string, data: JsonObject): JsonObject {
  const notes = Array.isArray(data.upstream_notes) ? data.upstream_notes.map(String) : [];
  let out = data;
  for (const c of correctionsFor({
    document_source: source as Entity["document_source"],
    kind: kind as Entity["kind"],
    key,
  })) {
    if (!notes.some((n) => n.includes(` gives ${c.field} `))) continue;
    const v = c.evidence[source];
    out = setPath(out, c.field, v ?? "none");
  }
  return out;
}

/** Slug without the words sources order differently ("Crossbow, heavy" = "Heavy Crossbow"). */
function matchKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9 ]+/g, " ")
    .split(/\s+/)
    .filter(Boolean)
    .sort()
    .join(" ");
}

export function auditStore(db: Database, kept: readonly KeptValue[] = KEPT): AuditResult {
  const kinds: KindAudit[] = [];
  const corrections: Correction[] = [];
  const unresolved: AuditResult["unresolved"] = [];
  for (const kind of AUDIT_KINDS) {
    const rows = db
      .query<{ document_source: string; key: string; name: string; data: string }, [string]>(
        `SELECT document_source, key, name, data FROM entities WHERE kind = ? AND document_key ` +
          `= 'srd-2014' AND document_source IN ('open5e_v2','open5e_v1','dnd5e_api') ORDER BY name`,
      )
      .all(kind);
    const groups = new Map<string, { name: string; members: Member[] }>();
    for (const r of rows) {
      const k = matchKey(r.name);
      const g = groups.get(k) ?? { name: r.name, members: [] };
      if (!g.members.some((m) => m.source === r.document_source))
        g.members.push({
          source: r.document_source,
          key: r.key,
          data: asTranscribed(r.document_source, kind, r.key, JSON.parse(r.data) as JsonObject),
        });
      groups.set(k, g);
    }
    const k: KindAudit = { kind, things: 0, fields: 0, agree: 0, corrected: 0, kept: 0, unresolved: 0 };
    for (const g of groups.values()) {
      if (g.members.length < 2) continue;
      k.things++;
      for (const v of compareMembers(kind, g.members)) {
        k.fields++;
        if (v.verdict === "agree") k.agree++;
        else if (
          v.verdict === "majority" &&
          kept.some((x) => x.kind === kind && x.name === g.name && x.field === v.field && x.source === v.minority)
        ) {
          k.kept++;
        } else if (v.verdict === "majority") {
          k.corrected++;
          const wrong = g.members.find((m) => m.source === v.minority)!;
          corrections.push({
            source: wrong.source,
            kind,
            key: wrong.key,
            name: g.name,
            field: v.field,
            value: v.majority!,
            evidence: Object.fromEntries(AUDITED_SOURCES.filter((s) => s in v.values).map((s) => [s, v.values[s]!])),
          });
        } else {
          k.unresolved++;
          unresolved.push({ kind, name: g.name, verdict: v });
        }
      }
    }
    kinds.push(k);
  }
  return { kinds, corrections, unresolved };
}

export function auditLines(r: AuditResult, listUnresolved = 0): string[] {
  const lines = [
    "agreement audit (SRD 5.1: Open5e v2 srd-2014, Open5e v1, D&D 5e API 2014):",
    "  kind        things  fields   agree  corrected  kept  unresolved",
  ];
  for (const k of r.kinds) {
    lines.push(
      `  ${k.kind.padEnd(11)} ${String(k.things).padStart(6)} ${String(k.fields).padStart(7)} ` +
        `${String(k.agree).padStart(7)} ${String(k.corrected).padStart(10)} ` +
        `${String(k.kept).padStart(5)} ${String(k.unresolved).padStart(11)}`,
    );
  }
  for (const u of r.unresolved.slice(0, listUnresolved)) {
    const vals = Object.entries(u.verdict.values)
      .map(([s, v]) => `${s}=${JSON.stringify(v)}`)
      .join(" ");
    lines.push(
      `  unresolved ${u.kind} ${u.name} ${u.verdict.field}: ` +
        `${vals}${u.verdict.similarity !== undefined ? ` (word overlap ${u.verdict.similarity})` : ""}`,
    );
  }
  return lines;
}

/** Sync the SRD 5.1 kinds of all three sources from `dataDir` (fake upstream) into a temporary store and audit it. */
export async function runAgreementAudit(
  dataDir: string,
  say: (m: string) => void = () => {},
  listUnresolved = 0,
): Promise<string[]> {
  const { startFakeUpstream } = await import("../test/support/fake-upstream.ts");
  const { runSync } = await import("../src/ingest/sync.ts");
  const { openStore } = await import("../src/store/db.ts");
  const { loadConfig } = await import("../src/config.ts");
  const tmp = mkdtempSync(join(tmpdir(), "lk-agreement-"));
  const upstream = await startFakeUpstream({ dataDir });
  const store = openStore({ path: join(tmp, "audit.db") });
  try {
    const t0 = performance.now();
    const config = { ...loadConfig(), ...upstreamsAt(upstream.url) };
    const report = await runSync(store, {
      config,
      force: true,
      sources: [...AUDITED_SOURCES],
      types: [...AUDIT_KINDS],
    });
    say(
      `agreement audit: synced ${report.records} records from ` +
        `${AUDITED_SOURCES.join(", ")} in ${Math.round(performance.now() - t0)} ms`,
    );
    return auditLines(auditStore(store.db), listUnresolved);
  } finally {
    store.close();
    await upstream.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      store: { type: "string" },
      data: { type: "string" },
      write: { type: "boolean" },
      list: { type: "string" },
    },
  });
  if (!values.store) {
    if (!values.data) {
      process.stderr.write(
        "usage: bun scripts/eval-agreement.ts (--store FILE [--write] | --data ../shared/data) [--list N]\n",
      );
      process.exit(64);
    }
    const lines = await runAgreementAudit(values.data, (m) => process.stderr.write(`${m}\n`), Number(values.list ?? 0));
    process.stdout.write(`${lines.join("\n")}\n`);
    process.exit(0);
  }
  const db = new Database(values.store, { readonly: true });
  const r = auditStore(db);
  db.close();
  process.stdout.write(`${auditLines(r, Number(values.list ?? 0)).join("\n")}\n`);
  if (values.write) {
    const sorted = [...r.corrections].sort((a, b) =>
      `${a.kind}:${a.name}:${a.field}:${a.source}`.localeCompare(`${b.kind}:${b.name}:${b.field}:${b.source}`),
    );
    const about =
      "SRD 5.1 fields where two upstreams agree against the third, written by " +
      "scripts/eval-agreement.ts --write: the majority answers (src/entities/corrections/apply.ts). " +
      "'kept': majority verdicts a review found wrong; the minority keeps its value.";
    await Bun.write(CORRECTIONS_PATH, `${JSON.stringify({ about, kept: KEPT, corrections: sorted }, null, 1)}\n`);
    process.stdout.write(`wrote ${sorted.length} corrections to ${CORRECTIONS_PATH}\n`);
  }
}
