/**
 * Generated test data for the hardening tests: an upstream tree (the hand-made fixtures plus N
 * generated Open5e v2 spells) and big OrcBrew files, each in a named "variant" so that a test can
 * tell the old set from the new one by name. Nothing here is copied from ../shared.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TINY_GENERIC_WORDS, TINY_TOPICS } from "../support/tiny-model.ts";

export const UPSTREAM_FIXTURES = join(import.meta.dir, "..", "fixtures", "upstream");
export const SOURCES_FIXTURES = join(import.meta.dir, "..", "fixtures", "sources");
export const ORCBREW_FIXTURES = join(import.meta.dir, "..", "fixtures", "orcbrew");

const TOPICS = [
  "fire flame burn",
  "cold ice frost",
  "undead necrotic drain life",
  "healing heal wounds restore",
  "shield protection ward arrows",
  "dragon breath scales",
  "lightning thunder storm",
  "poison venom toxic",
  "water sea swim",
  "stealth shadow hidden",
];

/** Words the tiny test model knows: three per text make (almost) every generated vector distinct. */
const WORDS = [...new Set([...Object.values(TINY_TOPICS).flat(), ...TINY_GENERIC_WORDS])];
function words(i: number): string {
  const w = WORDS.length;
  return `${WORDS[i % w]} ${WORDS[(i * 7 + 3) % w]} ${WORDS[Math.floor(i / w) % w]}`;
}

/** The name of generated spell `i` of `variant` (e.g. "Spell A 17"). */
export function spellName(variant: string, i: number): string {
  return `Spell ${variant} ${i}`;
}

/**
 * Copy the upstream fixtures to `dir` and replace Open5e v2 spells with `n` generated ones
 * (keys gen_spell_<i>, names "Spell <variant> <i>"). Returns `dir`.
 */
export function writeUpstream(dir: string, n: number, variant: string): string {
  cpSync(UPSTREAM_FIXTURES, dir, { recursive: true });
  const file = join(dir, "open5e", "v2", "spells.json");
  const template = (JSON.parse(readFileSync(file, "utf8")) as Array<Record<string, unknown>>)[0]!;
  const spells = Array.from({ length: n }, (_, i) => ({
    ...template,
    key: `gen_spell_${i}`,
    name: spellName(variant, i),
    level: i % 10,
    desc:
      `Variant ${variant}. A spell of ${TOPICS[i % TOPICS.length]} that strikes one creature ` +
      `within range; it takes ${1 + (i % 8)}d6 damage. ${words(variant === "A" ? i : i + 1)}.`,
  }));
  writeFileSync(file, JSON.stringify(spells));
  return dir;
}

/** Write an OrcBrew "Export All" file holding one pack of `n` spells named "<variant> Brew <i>". */
export function writeOrcbrew(path: string, pack: string, n: number, variant: string): string {
  const items: string[] = [];
  for (let i = 0; i < n; i++) {
    items.push(
      `:brew-${i} {:key :brew-${i}, :name "${variant} Brew ${i}", ` +
        `:option-pack "${pack}", :level ${1 + (i % 9)}, :school "evocation", ` +
        `:casting-time "1 action", :range "60 feet", :duration "Instantaneous", :spell-lists {:wizard true}, ` +
        `:description "Homebrew ${variant}: a burst of ${TOPICS[i % TOPICS.length]} ` +
        `for ${1 + (i % 6)}d8 damage, ${words(i * 3 + (variant === "A" ? 0 : 1))}."}`,
    );
  }
  writeFileSync(path, `{"${pack}" {:orcpub.dnd.e5/spells {${items.join(",\n")}}}}\n`);
  return path;
}
