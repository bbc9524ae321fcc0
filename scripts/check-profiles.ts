#!/usr/bin/env bun
/**
 * Every core creature, spell and magic item (SRD 5.1 and SRD 5.2) of the real data has a profile,
 * and each profile's recorded documents, sizes and types (creatures), levels and schools (spells)
 * and rarities (items) match the real records:
 *   bun scripts/check-profiles.ts [DATA_DIR]   (default ../shared/data or LOREKEEPER_EVAL_DATA)
 * Reads Open5e v2 creatures, spells and magic items (documents srd-2014, srd-2024) and D&D 5e API
 * 2014/2024 monsters, spells and magic items directly. Lists the entries with no profile, every
 * disagreement, profiles no record uses and text problems (numbers, empty or repeated entries);
 * exit 1 when there is any, 2 when the data cannot be read.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CREATURE_PROFILES,
  creatureProfile,
  type CreatureProfile,
  ITEM_PROFILES,
  type ItemProfile,
  itemProfile,
  SPELL_PROFILES,
  type SpellProfile,
  spellProfile,
} from "../src/entities/profiles.ts";
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
const nameOf = (v: unknown) =>
  v && typeof v === "object" ? String((v as { name?: unknown }).name ?? "") : String(v ?? "");

function blocks(): Block[] {
  const out: Block[] = [];
  for (const r of read("open5e/v2/creatures.json")) {
    const doc = key(r.document);
    if (doc !== "srd-2014" && doc !== "srd-2024") continue;
    out.push({
      source: "open5e_v2",
      name: String(r.name),
      document: doc,
      size: nameOf(r.size).toLowerCase(),
      type: nameOf(r.type).toLowerCase(),
    });
  }
  for (const year of ["2014", "2024"]) {
    for (const r of read(`dnd5eapi/${year}/monsters.json`)) {
      out.push({
        source: `dnd5e_api ${year}`,
        name: String(r.name),
        document: `srd-${year}`,
        size: String(r.size ?? "").toLowerCase(),
        type: String(r.type ?? "").toLowerCase(),
      });
    }
  }
  return out;
}

function checkCreatures(all: Block[]): number {
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
    if (!p.documents.includes(b.document))
      wrong.push(`${p.name}: documents ${p.documents.join(", ")} lack ${b.document} (${b.source} ${b.name})`);
    // The D&D 5e API writes sizes and types in its own words ("swarm of Tiny beasts"); Open5e v2 is the reference.
    if (b.source === "open5e_v2" && !p.sizes.includes(b.size))
      wrong.push(`${p.name}: sizes ${p.sizes.join("/")} lack ${b.size} (${b.document})`);
    if (b.source === "open5e_v2" && !p.types.includes(b.type))
      wrong.push(`${p.name}: types ${p.types.join("/")} lack ${b.type} (${b.document})`);
  }
  const unused = CREATURE_PROFILES.filter((p) => !used.has(p)).map((p) => p.name);
  const names = new Set(all.map((b) => `${b.document}\u0000${b.name}`));
  console.log(
    `${all.length} core stat blocks (${names.size} document/name pairs), ${CREATURE_PROFILES.length} profiles`,
  );
  console.log(`core creatures with no profile: ${missing.size}`);
  for (const m of [...missing].sort()) console.log(`  ${m}`);
  console.log(`disagreements with the stat blocks: ${wrong.length}`);
  for (const w of wrong) console.log(`  ${w}`);
  if (unused.length) console.log(`profiles no stat block uses: ${unused.join(", ")}`);
  return missing.size + wrong.length + unused.length;
}

interface SpellRecord {
  source: string;
  name: string;
  document: string;
  level: number;
  school: string;
}

function spellRecords(): SpellRecord[] {
  const out: SpellRecord[] = [];
  for (const r of read("open5e/v2/spells.json")) {
    const doc = key(r.document);
    if (doc !== "srd-2014" && doc !== "srd-2024") continue;
    const school = key(r.school).toLowerCase();
    out.push({ source: "open5e_v2", name: String(r.name), document: doc, level: Number(r.level), school });
  }
  // The D&D 5e API serves spells for 2014 only; its 2024 set has none.
  for (const r of read("dnd5eapi/2014/spells.json")) {
    const school = String((r.school as { index?: unknown } | undefined)?.index ?? "").toLowerCase();
    out.push({ source: "dnd5e_api 2014", name: String(r.name), document: "srd-2014", level: Number(r.level), school });
  }
  return out;
}

interface ItemRecord {
  source: string;
  name: string;
  document: string;
  rarity: string;
}

const ITEM_RARITIES = ["common", "uncommon", "rare", "very rare", "legendary", "artifact"];

/** A record's rarity in the profile's words: one rarity, else "varies" ("Rarity Varies", "Rare (+1), …"). */
function rarityWord(v: unknown): string {
  const s = nameOf(v).toLowerCase().replace(/-/g, " ").replace(/\s+/g, " ").trim();
  return ITEM_RARITIES.includes(s) ? s : "varies";
}

function itemRecords(): ItemRecord[] {
  const out: ItemRecord[] = [];
  for (const r of read("open5e/v2/magicitems.json")) {
    const doc = key(r.document);
    if (doc !== "srd-2014" && doc !== "srd-2024") continue;
    out.push({ source: "open5e_v2", name: String(r.name), document: doc, rarity: rarityWord(r.rarity) });
  }
  for (const year of ["2014", "2024"]) {
    for (const r of read(`dnd5eapi/${year}/magic-items.json`)) {
      const rarity = rarityWord(r.rarity);
      out.push({ source: `dnd5e_api ${year}`, name: String(r.name), document: `srd-${year}`, rarity });
    }
  }
  return out;
}

/** Text problems of a profiles file: numbers, empty fields, names filed twice, the same profile twice. */
interface Profiled {
  name: string;
  also?: string[];
  names: string[];
  profile: string;
}

function textProblems(entries: readonly Profiled[]): string[] {
  const out: string[] = [];
  const filed = new Set<string>();
  const texts = new Set<string>();
  for (const p of entries) {
    if (!p.name.trim() || !p.profile.trim()) out.push(`${p.name || "(no name)"}: an empty name or profile`);
    if (/\d/.test(p.profile)) out.push(`${p.name}: a number in the profile ("${/\S*\d\S*/.exec(p.profile)![0]}")`);
    if (!p.names.length || p.names.some((n) => !n.trim())) out.push(`${p.name}: no common names, or an empty one`);
    for (const n of [p.name, ...(p.also ?? [])]) {
      if (filed.has(n.toLowerCase())) out.push(`${n}: filed twice`);
      filed.add(n.toLowerCase());
    }
    if (texts.has(p.profile)) out.push(`${p.name}: the same profile as another entry`);
    texts.add(p.profile);
  }
  return out;
}

/** Names an entry is filed under (its own and `also`) that no record has. */
function unknownNames(entries: readonly Profiled[], records: readonly { name: string }[]): string[] {
  const known = new Set(records.map((r) => r.name.toLowerCase()));
  const filed = entries.flatMap((p) => [p.name, ...(p.also ?? [])]);
  return filed.filter((n) => !known.has(n.toLowerCase())).map((n) => `${n} (no record)`);
}

interface Findings {
  records: number;
  pairs: number;
  profiles: number;
  missing: Set<string>;
  wrong: string[];
  unused: string[];
  text: string[];
}

function report(kind: string, plural: string, f: Findings): number {
  const { missing, wrong, unused, text } = f;
  console.log(`\n${f.records} core ${kind} records (${f.pairs} document/name pairs), ${f.profiles} profiles`);
  console.log(`core ${plural} with no profile: ${missing.size}`);
  for (const m of [...missing].sort()) console.log(`  ${m}`);
  console.log(`disagreements with the records: ${wrong.length}`);
  for (const w of wrong) console.log(`  ${w}`);
  console.log(`profiles or names no record uses: ${unused.length}${unused.length ? ` (${unused.join(", ")})` : ""}`);
  console.log(`text problems: ${text.length}`);
  for (const t of text) console.log(`  ${t}`);
  return missing.size + wrong.length + unused.length + text.length;
}

function checkSpells(all: SpellRecord[]): number {
  const missing = new Set<string>();
  const wrong = new Set<string>();
  const used = new Set<SpellProfile>();
  for (const r of all) {
    const p = spellProfile(r.name, r.document);
    if (!p) {
      missing.add(`${r.name} (${r.source}, ${r.document})`);
      continue;
    }
    used.add(p);
    const at = `(${r.source} ${r.document})`;
    const docs = p.documents.join(", ");
    if (!p.documents.includes(r.document)) wrong.add(`${p.name}: documents ${docs} lack ${r.document} ${at}`);
    if (!p.levels.includes(r.level)) wrong.add(`${p.name}: levels ${p.levels.join("/")} lack ${r.level} ${at}`);
    if (!p.schools.includes(r.school)) wrong.add(`${p.name}: schools ${p.schools.join("/")} lack ${r.school} ${at}`);
  }
  const unused = SPELL_PROFILES.filter((p) => !used.has(p)).map((p) => p.name);
  unused.push(...unknownNames(SPELL_PROFILES, all));
  const pairs = new Set(all.map((r) => `${r.document}\u0000${r.name.toLowerCase()}`)).size;
  const text = textProblems(SPELL_PROFILES);
  const f = { records: all.length, pairs, profiles: SPELL_PROFILES.length, missing, wrong: [...wrong], unused, text };
  return report("spell", "spells", f);
}

function checkItems(all: ItemRecord[]): number {
  const missing = new Set<string>();
  const wrong = new Set<string>();
  const used = new Set<ItemProfile>();
  for (const r of all) {
    const p = itemProfile(r.name, r.document);
    if (!p) {
      missing.add(`${r.name} (${r.source}, ${r.document})`);
      continue;
    }
    used.add(p);
    const at = `(${r.source} ${r.name})`;
    const docs = p.documents.join(", ");
    if (!p.documents.includes(r.document)) wrong.add(`${p.name}: documents ${docs} lack ${r.document} ${at}`);
    if (!p.rarities.includes(r.rarity)) wrong.add(`${p.name}: rarities ${p.rarities.join("/")} lack ${r.rarity} ${at}`);
  }
  const unused = ITEM_PROFILES.filter((p) => !used.has(p)).map((p) => p.name);
  unused.push(...unknownNames(ITEM_PROFILES, all));
  const pairs = new Set(all.map((r) => `${r.document}\u0000${r.name.toLowerCase()}`)).size;
  const text = textProblems(ITEM_PROFILES);
  const f = { records: all.length, pairs, profiles: ITEM_PROFILES.length, missing, wrong: [...wrong], unused, text };
  return report("magic item", "magic items", f);
}

function main(): number {
  let creatures: Block[];
  let spells: SpellRecord[];
  let items: ItemRecord[];
  try {
    creatures = blocks();
    spells = spellRecords();
    items = itemRecords();
  } catch (err) {
    process.stderr.write(`check-profiles: ${(err as Error).message}\n`);
    return 2;
  }
  const bad = checkCreatures(creatures) + checkSpells(spells) + checkItems(items);
  return bad > 0 ? 1 : 0;
}

process.exitCode = main();
