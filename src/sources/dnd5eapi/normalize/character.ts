/**
 * D&D 5e API character options: classes and subclasses (features joined from related /features;
 * 2024 subclasses carry their own), species (trait texts from related /traits), backgrounds, feats.
 */
import type { ClassData, ClassFeature, NamedText } from "../../../entities/kinds.ts";
import {
  backgroundEntity,
  classEntity,
  featEntity,
  hitPoints,
  sortFeatures,
  speciesEntity,
  subclassData,
} from "../../../entities/normalize/canonical/character.ts";
import { int, names, rec, recs, refKey, str, textOf, type Rec } from "../../../entities/normalize/read.ts";
import { abilityTitle } from "../../../entities/normalize/vocab.ts";
import { byIndex, dndDesc, dndNormalizer, dndRef, dndRefs } from "./common.ts";
import { dndLevelTable } from "./levels.ts";

/** Text fields shown as traits / benefits, with their headings. */
const SPECIES_TEXTS = { age: "Age", alignment: "Alignment", size_description: "Size", language_desc: "Languages" };
const CHARACTERISTICS = { personality_traits: "Personality Traits", ideals: "Ideals", bonds: "Bonds", flaws: "Flaws" };

const fullAbility = (s: string | null) => abilityTitle(s) ?? s;

function featureLevel(f: Rec): number | null {
  const n = int(f.level);
  if (n !== null) return n;
  const idx = refKey(f.level);
  const m = idx ? /(\d+)$/.exec(idx) : null;
  return m ? Number(m[1]) : null;
}

function featuresFor(records: unknown[], classIdx: string | null, subclassIdx: string | null): ClassFeature[] {
  const out: ClassFeature[] = [];
  for (const f of recs(records)) {
    const sub = refKey(f.subclass);
    if (subclassIdx ? sub !== subclassIdx : refKey(f.class) !== classIdx || sub) continue;
    out.push({ name: str(f.name) ?? "Feature", level: featureLevel(f), desc: dndDesc(f) ?? "" });
  }
  return sortFeatures(out);
}

/** "1 × Longsword" per starting item, then each equipment option's description. */
function equipmentLines(items: unknown, options: unknown): string[] {
  return [
    ...recs(items).map((e) => `${int(e.quantity) ?? 1} × ${str(rec(e.equipment)?.name) ?? "?"}`),
    ...recs(options).flatMap((o) => str(o.desc) || []),
  ];
}

/** Sort proficiency references into armor / weapons / tools / saving throws. */
function proficiencies(refs: unknown, choices: unknown): ClassData["proficiencies"] {
  const armor: string[] = [];
  const weapons: string[] = [];
  const tools: string[] = [];
  const saves: string[] = [];
  for (const p of recs(refs)) {
    const name = str(p.name) ?? "";
    const idx = refKey(p) ?? "";
    if (idx.startsWith("saving-throw-")) saves.push(fullAbility(name.replace(/^saving throw:\s*/i, "")) ?? name);
    else if (/armor|shield/i.test(name)) armor.push(name);
    else if (
      /weapon|sword|bow|crossbow|dagger|dart|sling|staff|club|mace|spear|javelin|scimitar|sickle|hammer|axe/i.test(name)
    )
      weapons.push(name);
    else if (!idx.startsWith("skill-")) tools.push(name);
  }
  const skills = recs(choices)
    .map((c) => str(c.desc))
    .filter((s): s is string => !!s && /skill|choose/i.test(s))
    .join("; ");
  const join = (xs: string[]) => (xs.length ? xs.join(", ") : null);
  return {
    armor: join(armor),
    weapons: join(weapons),
    tools: join(tools),
    saving_throws: join(saves),
    skills: skills || null,
  };
}

export const normalizeDndClasses = dndNormalizer("classes", (r, b, year, ctx) => {
  const hd = int(r.hit_die);
  const equipment = equipmentLines(r.starting_equipment, r.starting_equipment_options);
  const spellAbility = str(rec(rec(r.spellcasting)?.spellcasting_ability)?.name);
  const primary = rec(r.primary_ability);
  return classEntity("dnd5e_api", b, {
    desc: null,
    ...hitPoints(hd, r.name),
    saving_throws: names(r.saving_throws).map((n) => fullAbility(n) ?? n),
    proficiencies: proficiencies(r.proficiencies, r.proficiency_choices),
    equipment: equipment.length ? equipment.join("; ") : null,
    spellcasting_ability: fullAbility(spellAbility),
    caster_type: null,
    primary_abilities: primary ? names(primary.ability_scores).map((n) => fullAbility(n) ?? n) : [],
    features: featuresFor(ctx.related?.features ?? [], r.index, null),
    subclasses: dndRefs(year, r.subclasses),
    subclass_of: null,
    table: dndLevelTable(ctx.related?.levels ?? [], r.index),
  });
});

export const normalizeDndSubclasses = dndNormalizer("subclasses", (r, b, year, ctx) => {
  const inline = recs(r.features).map((f) => ({
    name: str(f.name) ?? "Feature",
    level: int(f.level),
    desc: dndDesc(f) ?? "",
  }));
  const parent = dndRef(year, r.class);
  if (!parent) throw new Error("subclass has no class");
  const flavor = str(r.subclass_flavor) ?? str(r.summary);
  const desc = [flavor, dndDesc(r)].filter(Boolean).join("\n\n");
  const data = subclassData(
    parent,
    desc || null,
    inline.length ? sortFeatures(inline) : featuresFor(ctx.related?.features ?? [], null, r.index),
  );
  return classEntity("dnd5e_api", b, data);
});

function traitTexts(refs: unknown, traits: Map<string, Rec>): NamedText[] {
  return recs(refs).map((t) => {
    const full = traits.get(refKey(t) ?? "");
    return { name: str(t.name) ?? str(full?.name) ?? "Trait", desc: (full ? dndDesc(full) : null) ?? "" };
  });
}

function bonuses(x: unknown): string | null {
  const parts = recs(x).map((b) => `${fullAbility(str(rec(b.ability_score)?.name)) ?? "?"} +${int(b.bonus) ?? 0}`);
  return parts.length ? parts.join(", ") : null;
}

/** /races (2014), /species (2024), /subraces (2014), /subspecies (2024). */
export const normalizeDndSpecies = (endpoint: string) =>
  dndNormalizer(endpoint, (r, b, year, ctx) => {
    const parent = dndRef(year, r.race) ?? dndRef(year, r.species);
    const extra: NamedText[] = [];
    const asi = bonuses(r.ability_bonuses);
    if (asi) extra.push({ name: "Ability Score Increase", desc: asi });
    for (const [field, label] of Object.entries(SPECIES_TEXTS)) {
      const t = textOf(r[field]);
      if (t) extra.push({ name: label, desc: t });
    }
    return speciesEntity("dnd5e_api", b, {
      desc: dndDesc(r),
      size: str(r.size),
      speed: int(r.speed),
      traits: [...extra, ...traitTexts(r.traits ?? r.racial_traits, byIndex(ctx.related?.traits ?? []))],
      subspecies: dndRefs(year, r.subraces ?? r.subspecies),
      subspecies_of: parent,
    });
  });

function choiceOptions(x: unknown): string | null {
  const o = rec(x);
  const opts = recs(rec(o?.from)?.options).flatMap(
    (op) => (str(op.string) ?? str(op.desc) ?? str(rec(op.item)?.name)) || [],
  );
  return opts.length ? opts.join("\n") : null;
}

export const normalizeDndBackgrounds = dndNormalizer("backgrounds", (r, b) => {
  const profs = [...recs(r.starting_proficiencies), ...recs(r.proficiencies)];
  const skills = profs
    .filter((p) => (refKey(p) ?? "").startsWith("skill-"))
    .map((p) => (str(p.name) ?? "").replace(/^skill:\s*/i, ""));
  const tools = profs
    .filter((p) => !(refKey(p) ?? "").startsWith("skill-"))
    .map((p) => (str(p.name) ?? "").replace(/^tool:\s*/i, ""));
  const feature = rec(r.feature);
  const feat = rec(r.feat);
  const langs = rec(r.language_options);
  const equipment = equipmentLines(r.starting_equipment, r.equipment_options);
  const gold = rec(r.starting_gold);
  if (gold && int(gold.quantity)) equipment.push(`${int(gold.quantity)} ${str(gold.unit) ?? "gp"}`);
  const benefits: NamedText[] = [];
  for (const [field, label] of Object.entries(CHARACTERISTICS)) {
    const t = choiceOptions(r[field]);
    if (t) benefits.push({ name: label, desc: t });
  }
  return backgroundEntity("dnd5e_api", b, {
    desc: dndDesc(r),
    skill_proficiencies: skills.join(", ") || null,
    tool_proficiencies: tools.join(", ") || null,
    languages: langs && int(langs.choose) ? `Choose ${int(langs.choose)}` : null,
    equipment: equipment.join("; ") || null,
    feature: feature ? { name: str(feature.name) ?? "Feature", desc: textOf(feature.desc) ?? "" } : null,
    ability_scores:
      names(r.ability_scores)
        .map((n) => fullAbility(n) ?? n)
        .join(", ") || null,
    feat: feat ? `${str(feat.name) ?? ""}${str(feat.note) ? ` (${str(feat.note)})` : ""}` || null : null,
    benefits,
  });
});

export const normalizeDndFeats = dndNormalizer("feats", (r, b) => {
  const lines = (dndDesc(r) ?? "")
    .split(/\n+/)
    .map((l) => l.trim())
    .filter(Boolean);
  const benefits = lines.filter((l) => /^[-*]\s+|^\*\*/.test(l)).map((l) => l.replace(/^[-*]\s+/, ""));
  const intro = lines.filter((l) => !benefits.some((b) => l.endsWith(b))).join("\n");
  const prereqs = recs(r.prerequisites).map((p) =>
    `${fullAbility(str(rec(p.ability_score)?.name)) ?? "?"} ${int(p.minimum_score) ?? ""} or higher`.trim(),
  );
  const p2024 = rec(r.prerequisites);
  if (p2024) {
    if (int(p2024.minimum_level)) prereqs.push(`Level ${int(p2024.minimum_level)}+`);
    if (str(p2024.feature_named)) prereqs.push(`${str(p2024.feature_named)} feature`);
  }
  const optDesc = str(rec(r.prerequisite_options)?.desc);
  if (optDesc) prereqs.push(optDesc);
  return featEntity("dnd5e_api", b, {
    desc: intro || lines.join("\n"),
    prerequisite: prereqs.join("; ") || null,
    benefits,
    type: str(r.type)?.toLowerCase().replace(/[-_]/g, " ") ?? null,
  });
});
