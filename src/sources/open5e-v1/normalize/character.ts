/** Open5e v1 /classes/ (+ nested archetypes → subclass), /races/ (+ subraces), /backgrounds/, /feats/. */
import type { ClassData, ClassFeature, NamedText, SpeciesData } from "../../../entities/kinds.ts";
import type { Entity } from "../../../entities/types.ts";
import {
  backgroundEntity,
  classEntity,
  featEntity,
  sortFeatures,
  speciesEntity,
  subclassData,
} from "../../../entities/normalize/canonical/character.ts";
import { arr, int, recs, str, type Rec } from "../../../entities/normalize/read.ts";
import { boldTraits, v1Doc, v1Normalizer } from "./common.ts";

const LEVEL_RE = /(?:at|beginning at|starting at|when you reach|by)\s+(\d+)(?:st|nd|rd|th)\s+level/i;

/** Feature name (lower-case) → first level, from the class table's "Features" column. */
function tableLevels(table: string | null): Map<string, number> {
  const out = new Map<string, number>();
  if (!table) return out;
  const rows = table.split(/\r?\n/).map((l) => l.split("|").map((c) => c.trim()));
  const header = rows.find((r) => r.some((c) => /^features$/i.test(c)));
  if (!header) return out;
  const col = header.findIndex((c) => /^features$/i.test(c));
  for (const row of rows) {
    const level = int(/^(\d+)/.exec(row[1] ?? "")?.[1]);
    if (level === null) continue;
    for (const f of (row[col] ?? "").split(",")) {
      const name = f.trim().toLowerCase();
      if (name && name !== "-" && !out.has(name)) out.set(name, level);
    }
  }
  return out;
}

/**
 * Split markdown at headings into features: at `depth` hashes exactly, or (no depth) at the
 * shallowest heading depth present. Deeper headings stay inside their feature.
 */
function headedSections(md: string | null, depth?: number, levels = new Map<string, number>()): ClassFeature[] {
  if (!md) return [];
  const found = [...md.matchAll(/^(#{1,6})\s+\S/gm)].map((m) => m[1]!.length);
  const d = depth ?? (found.length ? Math.min(...found) : 0);
  if (!d) return [];
  const heads = [...md.matchAll(new RegExp(`^#{${d}}\\s+(.+?)\\s*$`, "gm"))];
  return heads.map((h, i) => {
    const name = h[1]!.replace(/[*_]/g, "").trim();
    const desc = md.slice(h.index! + h[0].length, heads[i + 1]?.index ?? md.length).trim();
    const level = levels.get(name.toLowerCase()) ?? int(LEVEL_RE.exec(desc)?.[1]);
    return { name, level, desc };
  });
}

function dieOf(s: string | null): string | null {
  const m = s ? /d\s*(\d+)/i.exec(s) : null;
  return m ? `d${m[1]}` : null;
}

export const normalizeV1Classes = v1Normalizer("classes", (r, b, ctx): Entity[] => {
  const table = str(r.table);
  const archetypes = recs(r.archetypes).filter((a) => str(a.slug) && str(a.name));
  const prof = {
    armor: str(r.prof_armor),
    weapons: str(r.prof_weapons),
    tools: str(r.prof_tools),
    saving_throws: str(r.prof_saving_throws),
    skills: str(r.prof_skills),
  };
  const cls: ClassData = {
    desc: null,
    hit_die: dieOf(str(r.hit_dice)),
    hit_points_at_1st_level: str(r.hp_at_1st_level),
    hit_points_at_higher_levels: str(r.hp_at_higher_levels),
    saving_throws: (prof.saving_throws ?? "")
      .split(/,| and /)
      .map((s) => s.trim())
      .filter(Boolean),
    proficiencies: prof,
    equipment: str(r.equipment),
    spellcasting_ability: str(r.spellcasting_ability),
    caster_type: null,
    primary_abilities: [],
    features: sortFeatures(headedSections(str(r.desc), 3, tableLevels(table))),
    subclasses: archetypes.map((a) => ({ key: str(a.slug)!, name: str(a.name)! })),
    subclass_of: null,
    table,
  };
  const out = [classEntity("open5e_v1", b, cls)];
  for (const a of archetypes) {
    const desc = str(a.desc);
    const features = headedSections(desc);
    const intro = desc && features.length ? desc.slice(0, desc.search(/^#{1,6}\s/m)).trim() : desc;
    const sub = subclassData({ key: b.key, name: b.name }, intro || null, sortFeatures(features));
    const doc = str(a.document__slug) ? v1Doc(a, ctx) : b.doc;
    out.push(classEntity("open5e_v1", { key: str(a.slug)!, name: str(a.name)!, doc, url: b.url }, sub));
  }
  return out;
});

function raceTraits(r: Rec): NamedText[] {
  const fields = ["asi_desc", "age", "alignment", "size", "speed_desc", "languages", "vision"];
  const fromFields = fields.flatMap((f) =>
    boldTraits(
      str(r[f]),
      f === "asi_desc" ? "Ability Score Increase" : f.replace(/_desc$/, "").replace(/^./, (c) => c.toUpperCase()),
    ),
  );
  return [...fromFields, ...boldTraits(str(r.traits), "Traits")];
}

export const normalizeV1Races = v1Normalizer("races", (r, b, ctx): Entity[] => {
  const subraces = recs(r.subraces).filter((s) => str(s.slug) && str(s.name));
  const size = str(r.size_raw);
  const speed = int(recs([r.speed])[0]?.walk);
  const race: SpeciesData = {
    desc: str(r.desc),
    size,
    speed,
    traits: raceTraits(r),
    subspecies: subraces.map((s) => ({ key: str(s.slug)!, name: str(s.name)! })),
    subspecies_of: null,
  };
  const out = [speciesEntity("open5e_v1", b, race)];
  for (const s of subraces) {
    const doc = str(s.document__slug) ? v1Doc(s, ctx) : b.doc;
    const sub: SpeciesData = {
      desc: str(s.desc),
      size,
      speed,
      traits: [...boldTraits(str(s.asi_desc), "Ability Score Increase"), ...boldTraits(str(s.traits), "Traits")],
      subspecies: [],
      subspecies_of: { key: b.key, name: b.name },
    };
    out.push(speciesEntity("open5e_v1", { key: str(s.slug)!, name: str(s.name)!, doc, url: b.url }, sub));
  }
  return out;
});

export const normalizeV1Backgrounds = v1Normalizer("backgrounds", (r, b) => {
  const feature = str(r.feature);
  const chars = str(r.suggested_characteristics);
  return backgroundEntity("open5e_v1", b, {
    desc: str(r.desc),
    skill_proficiencies: str(r.skill_proficiencies),
    tool_proficiencies: str(r.tool_proficiencies),
    languages: str(r.languages),
    equipment: str(r.equipment),
    feature: feature ? { name: feature, desc: str(r.feature_desc) ?? "" } : null,
    ability_scores: null,
    feat: null,
    benefits: chars ? [{ name: "Suggested Characteristics", desc: chars }] : [],
  });
});

export const normalizeV1Feats = v1Normalizer("feats", (r, b) => {
  return featEntity("open5e_v1", b, {
    desc: str(r.desc) ?? "",
    prerequisite: str(r.prerequisite)?.replace(/^prerequisite:\s*/i, "") ?? null,
    benefits: arr(r.effects_desc).flatMap((x) => str(x) || []),
    type: null,
  });
});
