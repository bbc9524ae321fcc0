/**
 * Manual check (not part of `bun test`): load a real fastembed model folder through the provider
 * and print a few query → passage similarities, plus load and embedding times.
 *
 *   bun scripts/check-static-model.ts [model-dir]   (default ../shared/models/lorekeeper-static-384)
 */
import { createEmbedderProvider } from "../src/search/model/embedder.ts";
import { SHARED_MODEL } from "./shared-dir.ts";

const dir = process.argv[2] ?? SHARED_MODEL;
const provider = createEmbedderProvider({ modelDir: dir, embeddedDir: null, allowDownload: false });
const t0 = performance.now();
const e = await provider.get();
if (!e) {
  console.error(`model unavailable: ${provider.reason()}`);
  process.exit(1);
}
console.log(`${e.id} dim=${e.dim} loaded in ${(performance.now() - t0).toFixed(0)} ms`, provider.info());

const passages: Record<string, string> = {
  "Fire Shield":
    "Fire Shield. Thin and wispy flames wreathe your body, shedding " +
    "bright light; the flames protect you from cold or fire.",
  "Ice Storm": "Ice Storm. A hail of rock-hard ice pounds to the ground in a cylinder; bludgeoning and cold damage.",
  "Cure Wounds":
    "Cure Wounds. A creature you touch regains a number of hit points equal to 1d8 + your spellcasting modifier.",
  Fireball:
    "Fireball. A bright streak flashes to a point you choose and " +
    "then blossoms with a low roar into an explosion of flame.",
  Wraith:
    "Wraith. Undead. Life Drain: the target's hit point maximum " +
    "is reduced by an amount equal to the necrotic damage taken.",
  Wizard:
    "Wizard. Wizards are supreme magic-users, defined and united as a class by the spells they cast; arcane study.",
  Fighter: "Fighter. A master of martial combat, skilled with a variety of weapons and armor.",
};
const queries = [
  "protect from fire",
  "restore health and cure wounds",
  "undead that drain life",
  "masters of arcane magic",
];

const names = Object.keys(passages);
const t1 = performance.now();
const pv = await e.embedPassages(Object.values(passages));
console.log(`${names.length} passages embedded in ${(performance.now() - t1).toFixed(1)} ms`);
for (const q of queries) {
  const t2 = performance.now();
  const qv = await e.embedQuery(q);
  const ms = performance.now() - t2;
  const scored = names
    .map((n, i) => {
      let s = 0;
      for (let d = 0; d < e.dim; d++) s += qv[d]! * pv[i]![d]!;
      return [n, s] as const;
    })
    .sort((a, b) => b[1] - a[1]);
  console.log(`\n"${q}" (${ms.toFixed(1)} ms)`);
  for (const [n, s] of scored) console.log(`  ${s.toFixed(3)}  ${n}`);
}
