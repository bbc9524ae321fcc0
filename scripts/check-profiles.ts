#!/usr/bin/env bun
/**
 * Every core creature (SRD 5.1 and SRD 5.2) of the real data has a profile, and each profile's
 * recorded documents, sizes and types match the real stat blocks:
 *   bun scripts/check-profiles.ts [DATA_DIR]   (default ../shared/data or LOREKEEPER_EVAL_DATA)
 * Reads Open5e v2 creatures (documents srd-2014, srd-2024) and D&D 5e API 2014/2024 monsters
 * directly. Lists the creatures with no profile and every disagreement; exit 1 when there is any,
 * 2 when the data cannot be read.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CREATURE_PROFILES, type CreatureProfile, creatureProfile } from "../src/entities/creature-profiles.ts";
import { SHARED_DATA } from "./shared-dir.ts";

interface Block {
  source: string;
  name: string;
  document: string;
  size: string;
  type: string;
}

const dataDir = process.argv[2] ?? process.env.LOREKEEPER_EVAL_DATA ?? SHARED_DATA;

function read(path: string): Record<string, unknown>[] {
  const file = join(dataDir, path);
  if (!existsSync(file)) throw new Error(`no ${file}; pass the data folder (as in ../shared/data)`);
  const v = JSON.parse(readFileSync(file, "utf8")) as unknown;
  const rows = Array.isArray(v) ? v : (v as { results?: unknown }).results;
  if (!Array.isArray(rows)) throw new Error(`${file}: not a list of records`);
  return rows as Record<string, unknown>[];
}

const key = (v: unknown) => (v && typeof v === "object" ? String((v as { key?: unknown }).key ?? "") : String(v ?? ""));
const nameOf = (v: unknown) => (v && typeof v === "object" ? String((v as { name?: unknown }).name ?? "") : String(v ?? ""));

function blocks(): Block[] {
  const out: Block[] = [];
  for (const r of read("open5e/v2/creatures.json")) {
    const doc = key(r.document);
    if (doc !== "srd-2014" && doc !== "srd-2024") continue;
    out.push({ source: "open5e_v2", name: String(r.name), document: doc, size: nameOf(r.size).toLowerCase(), type: nameOf(r.type).toLowerCase() });
  }
  for (const year of ["2014", "2024"]) {
    for (const r of read(`dnd5eapi/${year}/monsters.json`)) {
      out.push({ source: `dnd5e_api ${year}`, name: String(r.name), document: `srd-${year}`, size: String(r.size ?? "").toLowerCase(), type: String(r.type ?? "").toLowerCase() });
    }
  }
  return out;
}

function main(): number {
  let all: Block[];
  try {
    all = blocks();
  } catch (err) {
    process.stderr.write(`check-profiles: ${(err as Error).message}\n`);
    return 2;
  }
  const missing = new Set<string>();
  const wrong: string[] = [];
  const used = new Set<CreatureProfile>();
  for (const b of all) {
    const p = creatureProfile(b.name, b.document);
    if (!p) {
      missing.add(`${b.name} (${b.source}, ${b.document})`);
      continue;
    }
    used.add(p);
    if (!p.documents.includes(b.document)) wrong.push(`${p.name}: documents ${p.documents.join(", ")} lack ${b.document} (${b.source} ${b.name})`);
    // The D&D 5e API writes sizes and types in its own words ("swarm of Tiny beasts"); Open5e v2 is the reference.
    if (b.source === "open5e_v2" && !p.sizes.includes(b.size)) wrong.push(`${p.name}: sizes ${p.sizes.join("/")} lack ${b.size} (${b.document})`);
    if (b.source === "open5e_v2" && !p.types.includes(b.type)) wrong.push(`${p.name}: types ${p.types.join("/")} lack ${b.type} (${b.document})`);
  }
  const unused = CREATURE_PROFILES.filter((p) => !used.has(p)).map((p) => p.name);
  const names = new Set(all.map((b) => `${b.document}\u0000${b.name}`));
  console.log(`${all.length} core stat blocks (${names.size} document/name pairs), ${CREATURE_PROFILES.length} profiles`);
  console.log(`core creatures with no profile: ${missing.size}`);
  for (const m of [...missing].sort()) console.log(`  ${m}`);
  console.log(`disagreements with the stat blocks: ${wrong.length}`);
  for (const w of wrong) console.log(`  ${w}`);
  if (unused.length) console.log(`profiles no stat block uses: ${unused.join(", ")}`);
  return missing.size + wrong.length + unused.length > 0 ? 1 : 0;
}

process.exitCode = main();
