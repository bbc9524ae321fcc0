/** Character options from canonical data: class, subclass, species, subspecies, background, feat. */
import type { ClassData, ClassFeature, NamedText, Ref, SpeciesData } from "../../kinds.ts";
import type { DocumentSource, Entity } from "../../types.ts";
import { type Base, builder, entity } from "../build.ts";
import { capitalize, ordinal, titleCase } from "../text.ts";
import { classKey } from "../vocab.ts";

/** Features sorted by level (unknown levels last), in their order otherwise (the sort is stable). */
export function sortFeatures(fs: ClassFeature[]): ClassFeature[] {
  return fs.toSorted((a, b) => (a.level ?? 99) - (b.level ?? 99));
}

function featureLines(fs: ClassFeature[]): string | null {
  if (!fs.length) return null;
  return fs.map((f) => `${f.level !== null ? `${ordinal(f.level)} level: ` : ""}${f.name}. ${f.desc}`).join("\n");
}

/** The rules' Darkvision trait at a range in feet (homebrew formats give only the number). */
export function darkvisionTrait(feet: number): NamedText {
  const bright = `You can see in dim light within ${feet} feet of you as if it were bright light`;
  return { name: "Darkvision", desc: `${bright}, and in darkness as if it were dim light.` };
}

/** A class's hit die and its two hit-point sentences, in the rules' words; all null without a die. */
export function hitPoints(faces: number | null, className: string) {
  if (faces === null || faces <= 0)
    return { hit_die: null, hit_points_at_1st_level: null, hit_points_at_higher_levels: null };
  const perLevel = `1d${faces} (or ${faces / 2 + 1}) + your Constitution modifier`;
  return {
    hit_die: `d${faces}`,
    hit_points_at_1st_level: `${faces} + your Constitution modifier`,
    hit_points_at_higher_levels: `${perLevel} per ${className} level after 1st`,
  };
}

/** A subclass's data where the source gives only its text and features: the class-level fields stay empty. */
export function subclassData(parent: Ref, desc: string | null, features: ClassFeature[]): ClassData {
  return {
    desc,
    hit_die: null,
    hit_points_at_1st_level: null,
    hit_points_at_higher_levels: null,
    saving_throws: [],
    proficiencies: { armor: null, weapons: null, tools: null, saving_throws: null, skills: null },
    equipment: null,
    spellcasting_ability: null,
    caster_type: null,
    primary_abilities: [],
    features,
    subclasses: [],
    subclass_of: parent,
    table: null,
  };
}

export function classEntity(source: DocumentSource, b: Base, d: ClassData): Entity {
  const isSub = d.subclass_of !== null;
  const p = d.proficiencies;
  // "Armor: …", "Saving Throws: …"
  const profs = (["armor", "weapons", "tools", "saving_throws", "skills"] as const)
    .filter((k) => p[k])
    .map((k) => `${titleCase(k)}: ${p[k]}`);
  return entity(source, {
    kind: isSub ? "subclass" : "class",
    ...b,
    header: isSub ? `${d.subclass_of!.name} subclass` : `Class${d.hit_die ? `, hit die ${d.hit_die}` : ""}`,
    body: [
      d.desc,
      d.hit_points_at_1st_level ? `Hit points at 1st level: ${d.hit_points_at_1st_level}` : null,
      d.hit_points_at_higher_levels ? `Hit points at higher levels: ${d.hit_points_at_higher_levels}` : null,
      profs.join(". ") || null,
      d.spellcasting_ability ? `Spellcasting ability: ${d.spellcasting_ability}` : null,
      d.primary_abilities.length ? `Primary ability: ${d.primary_abilities.join(", ")}` : null,
      d.subclasses.length ? `Subclasses: ${d.subclasses.map((s) => s.name).join(", ")}` : null,
      d.equipment ? `Equipment: ${d.equipment}` : null,
      featureLines(d.features),
    ],
    filters: isSub ? { classes: [classKey(d.subclass_of!.key) ?? d.subclass_of!.key] } : {},
    data: d,
  });
}

export function speciesEntity(source: DocumentSource, b: Base, d: SpeciesData): Entity {
  const isSub = d.subspecies_of !== null;
  return entity(source, {
    kind: isSub ? "subspecies" : "species",
    ...b,
    header: isSub ? `${d.subspecies_of!.name} subspecies` : `Species${d.size ? `, ${d.size}` : ""}`,
    body: [
      d.desc,
      d.speed !== null ? `Speed ${d.speed} ft.` : null,
      d.traits.map((t) => `${t.name}. ${t.desc}`).join("\n") || null,
      d.subspecies.length ? `Subspecies: ${d.subspecies.map((s) => s.name).join(", ")}` : null,
    ],
    filters: { size: d.size ? d.size.toLowerCase() : null },
    data: d,
  });
}

export const backgroundEntity = builder("background", (d) => {
  const fields = [
    "skill_proficiencies",
    "tool_proficiencies",
    "languages",
    "ability_scores",
    "feat",
    "equipment",
  ] as const;
  // A benefit whose text is already one of these fields is not repeated.
  const listed = new Set([...fields.map((f) => d[f]), d.feature?.desc].filter(Boolean));
  return {
    header: "Background",
    body: [
      d.desc,
      // "Skill proficiencies: …", "Ability scores: …"
      ...fields.map((f) => (d[f] ? `${capitalize(f.replace(/_/g, " "))}: ${d[f]}` : null)),
      d.feature ? `Feature: ${d.feature.name}. ${d.feature.desc}` : null,
      ...d.benefits.filter((x) => !listed.has(x.desc)).map((x) => `${x.name}. ${x.desc}`),
    ],
  };
});

export const featEntity = builder("feat", (d) => ({
  header: d.type ? `${capitalize(d.type)} feat` : "Feat",
  body: [d.prerequisite ? `Prerequisite: ${d.prerequisite}` : null, d.desc, ...d.benefits],
  filters: { category: d.type },
}));
