/** Creature entity from canonical CreatureData (all sources). */
import type { CreatureAction, CreatureData } from "../../kinds.ts";
import type { DocumentSource, Entity } from "../../types.ts";
import { formatCr } from "../../types.ts";
import { creatureProfile, profileLead } from "../../profiles.ts";
import { entity, type Base } from "../build.ts";
import { capitalize } from "../text.ts";
import { num, rec } from "../read.ts";
import { ABILITIES } from "../vocab.ts";
import { creatureSummary } from "./creature-summary.ts";

export interface CreatureFilterKeys {
  /** lower-case type key ("undead"); defaults to the lower-cased display type */
  typeKey?: string | null;
  /** lower-case size key ("large"); defaults to the lower-cased display size */
  sizeKey?: string | null;
}

/** "dexterity" → "DEX" */
const ABBR: Record<string, string> = Object.fromEntries(
  Object.entries(ABILITIES).map(([a, full]) => [full, a.toUpperCase()]),
);

function signed(n: number): string {
  return n >= 0 ? `+${n}` : String(n);
}

function speedText(speed: CreatureData["speed"]): string | null {
  const parts: string[] = [];
  for (const [mode, val] of Object.entries(speed)) {
    if (typeof val !== "number") continue;
    parts.push(
      mode === "walk" ? `${val} ft.` : `${mode} ${val} ft.${mode === "fly" && speed.hover === true ? " (hover)" : ""}`,
    );
  }
  return parts.length ? parts.join(", ") : null;
}

function actionLines(title: string, xs: CreatureAction[], intro?: string | null): string | null {
  if (xs.length === 0 && !intro) return null;
  const lines = xs.map((a) => {
    const tag = [a.usage, a.cost && a.cost > 1 ? `Costs ${a.cost} Actions` : null].filter(Boolean).join("; ");
    return `${a.name}${tag ? ` (${tag})` : ""}. ${a.desc}`;
  });
  return [title, intro ?? null, ...lines].filter(Boolean).join("\n");
}

/** "Large undead, CR 5" (size and type as given, type lower-cased). */
function creatureHeader(d: CreatureData): string {
  const sizeType = [d.size ? capitalize(d.size.toLowerCase()) : null, d.type ? d.type.toLowerCase() : "creature"]
    .filter(Boolean)
    .join(" ");
  const sub = d.subtype ? ` (${d.subtype})` : "";
  const cr = d.cr_display ? `, CR ${d.cr_display}` : "";
  return `${sizeType}${sub}${cr}`;
}

/**
 * `{ name: bonus }` maps (saves, skills) with numeric values. `key` renames a name or drops it (null);
 * by default it makes a skill key ("Sleight of Hand" → "sleight_of_hand").
 */
export function bonusMap(raw: unknown, key: (k: string) => string | null = skillKey): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, val] of Object.entries(rec(raw) ?? {})) {
    const n = num(val);
    const name = key(k);
    if (n !== null && name) out[name] = n;
  }
  return out;
}

export const skillKey = (k: string) => k.toLowerCase().replace(/\s+/g, "_");

/** Speeds by mode from an upstream `{ walk: 30, fly: 60, hover: true }`, each read by `read`. */
export function speedModes(raw: unknown, read: (v: unknown) => number | null): CreatureData["speed"] {
  const speed: CreatureData["speed"] = {};
  for (const [k, val] of Object.entries(rec(raw) ?? {})) {
    if (k === "hover") {
      if (val === true) speed.hover = true;
      continue;
    }
    const n = read(val);
    // Open5e v1 abbreviates once ("bur." on scarab-ruin): the canonical mode is "burrow"
    const mode = k.replace(/\.$/, "");
    if (n !== null) speed[mode === "bur" ? "burrow" : mode] = n;
  }
  return speed;
}

/**
 * A creature entity. Its text leads with what the creature is, in words: a core creature's profile
 * and the names people use for it (src/entities/profiles.ts), then a summary of the stat
 * block without numbers; the full stat block follows. A core creature's `data` carries the profile
 * (`profile`, `common_names`).
 */
export function creatureEntity(
  source: DocumentSource,
  b: Base,
  raw: CreatureData,
  keys: CreatureFilterKeys = {},
): Entity {
  const p = creatureProfile(b.name, b.doc.key);
  const d: CreatureData = p ? { ...raw, profile: p.profile, common_names: [...p.names] } : raw;
  const abilities = Object.entries(d.ability_scores)
    .filter((e): e is [string, number] => typeof e[1] === "number")
    .map(([k, val]) => `${ABBR[k] ?? k} ${val}`)
    .join(", ");
  const saves = Object.entries(d.saving_throws)
    .map(([k, val]) => `${ABBR[k] ?? k} ${signed(val)}`)
    .join(", ");
  const skills = Object.entries(d.skills)
    .map(([k, val]) => `${k.replace(/_/g, " ")} ${signed(val)}`)
    .join(", ");
  const stats = [
    d.alignment,
    d.armor_class !== null ? `Armor Class ${d.armor_class}${d.armor_detail ? ` (${d.armor_detail})` : ""}` : null,
    d.hit_points !== null ? `Hit Points ${d.hit_points}${d.hit_dice ? ` (${d.hit_dice})` : ""}` : null,
    speedText(d.speed) ? `Speed ${speedText(d.speed)}` : null,
    abilities || null,
    saves ? `Saving Throws ${saves}` : null,
    skills ? `Skills ${skills}` : null,
    d.damage_vulnerabilities ? `Damage Vulnerabilities ${d.damage_vulnerabilities}` : null,
    d.damage_resistances ? `Damage Resistances ${d.damage_resistances}` : null,
    d.damage_immunities ? `Damage Immunities ${d.damage_immunities}` : null,
    d.condition_immunities ? `Condition Immunities ${d.condition_immunities}` : null,
    d.senses ? `Senses ${d.senses}` : null,
    d.languages ? `Languages ${d.languages}` : null,
    d.cr_display ? `Challenge ${d.cr_display}${d.xp !== null ? ` (${d.xp} XP)` : ""}` : null,
  ].filter(Boolean);
  return entity(source, {
    kind: "creature",
    ...b,
    header: creatureHeader(d),
    body: [
      profileLead(p) ?? loreLead(d.desc),
      creatureSummary(d),
      stats.join("\n"),
      actionLines("Traits", d.traits),
      actionLines("Actions", d.actions),
      actionLines("Bonus Actions", d.bonus_actions),
      actionLines("Reactions", d.reactions),
      actionLines("Legendary Actions", d.legendary_actions, d.legendary_desc),
      actionLines("Lair Actions", d.lair_actions),
      d.desc,
      d.group ? `Group: ${d.group}` : null,
      d.environments.length ? `Environments: ${d.environments.join(", ")}` : null,
    ],
    filters: {
      cr: d.cr,
      creature_type: (keys.typeKey ?? d.type)?.toLowerCase() ?? null,
      size: (keys.sizeKey ?? d.size)?.toLowerCase() ?? null,
      armor_class: d.armor_class,
      hit_points: d.hit_points,
    },
    data: d,
  });
}

/**
 * The lead of a creature without a profile whose source has a lore paragraph (Tome of Beasts, the
 * SRD's NPCs in Open5e v1): its first paragraph, up to about 600 characters, cut after a sentence.
 * The whole text still follows the stat block.
 */
function loreLead(desc: string | null): string | null {
  const first = desc
    ?.trim()
    .split(/\n\s*\n|\n/)[0]
    ?.trim();
  if (!first) return null;
  if (first.length <= 600) return first;
  const cut = first.slice(0, 600);
  const end = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf(".\u201d "));
  return end > 200 ? cut.slice(0, end + 1) : `${cut.slice(0, cut.lastIndexOf(" "))}…`;
}

/** A legendary action's cost as its name states it ("Wing Attack (Costs 2 Actions)" → 2), else 1. */
export function legendaryCost(name: string): number {
  return Number(/costs (\d) actions/i.exec(name)?.[1] ?? 1) || 1;
}

/** The CR pair stored on every creature. */
export function crFields(cr: number | null): { cr: number | null; cr_display: string | null } {
  return { cr, cr_display: formatCr(cr) };
}
