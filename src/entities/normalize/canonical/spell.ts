/** Spell entity from canonical SpellData: header, search text and filters are derived here for every source. */
import type { SpellData } from "../../kinds.ts";
import type { DocumentSource, Entity } from "../../types.ts";
import { entity, type Base } from "../build.ts";
import { capitalize, ordinal, titleCase } from "../text.ts";
import { normalizeCastingTime } from "../vocab.ts";
import { DAMAGE_TYPES } from "../../catalog.ts";
import { profileLead, spellProfile } from "../../profiles.ts";

function spellHeader(d: SpellData): string {
  const school = d.school ?? "";
  const base =
    d.level === 0
      ? `${capitalize(school || "unknown school")} cantrip`
      : `Level ${d.level} ${school ? `${school} ` : ""}spell`;
  const tags = [d.ritual ? "ritual" : null, d.concentration ? "concentration" : null].filter(Boolean);
  return tags.length ? `${base} (${tags.join(", ")})` : base;
}

function componentsText(c: SpellData["components"]): string {
  const letters = [c.verbal ? "V" : null, c.somatic ? "S" : null, c.material ? "M" : null].filter(Boolean).join(", ");
  return c.material && c.material_text ? `${letters} (${c.material_text})` : letters;
}

/**
 * A spell entity. A core spell's text leads with its plain-words profile and the names people use
 * for it (src/entities/profiles.ts): what it is for, in the words of someone who does not
 * remember its name, where the embedding model reads first; its `data` carries them (`profile`,
 * `common_names`).
 */
export function spellEntity(source: DocumentSource, b: Base, raw: SpellData): Entity {
  const p = spellProfile(b.name, b.doc.key);
  const d: SpellData = p ? { ...raw, profile: p.profile, common_names: [...p.names] } : raw;
  const facts = [
    d.casting_time ? `Casting time: ${d.casting_time}` : null,
    d.range ? `Range: ${d.range}` : null,
    `Components: ${componentsText(d.components) || "none"}`,
    d.duration
      ? `Duration: ` +
        `${d.concentration && !/concentration/i.test(d.duration) ? `Concentration, ${d.duration}` : d.duration}`
      : null,
  ].filter(Boolean);
  return entity(source, {
    kind: "spell",
    ...b,
    header: spellHeader(d),
    body: [
      profileLead(p),
      facts.join(". "),
      d.classes.length ? `Classes: ${d.classes.map(titleCase).join(", ")}` : null,
      d.desc,
      d.higher_level ? `At higher levels: ${d.higher_level}` : null,
      d.damage_types.length ? `Damage: ${d.damage_types.join(", ")}` : null,
      d.saving_throw ? `Saving throw: ${d.saving_throw}` : null,
      `${d.level === 0 ? "cantrip" : `${ordinal(d.level)}-level`} ${d.school ?? ""}`.trim(),
    ],
    filters: {
      level: d.level,
      school: d.school,
      classes: d.classes,
      concentration: d.concentration,
      ritual: d.ritual,
      casting_time: normalizeCastingTime(d.casting_time),
      damage_types: d.damage_types,
    },
    data: d,
  });
}

const DAMAGE_TYPE_RE = DAMAGE_TYPES.join("|");

/** Damage types a spell text deals ("takes 8d6 fire damage" → ["fire"]), for sources without a field. */
export function damageTypesIn(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(
    new RegExp(`\\b(${DAMAGE_TYPE_RE})(?:,? (?:or|and) (?:${DAMAGE_TYPE_RE}))* damage\\b`, "gi"),
  )) {
    for (const t of m[0].toLowerCase().matchAll(new RegExp(DAMAGE_TYPE_RE, "g"))) found.add(t[0]);
  }
  return [...found];
}

/** Ability of the first saving throw a text asks for ("a Dexterity saving throw" → "dexterity"). */
export function savingThrowIn(text: string): string | null {
  const m = /\b(strength|dexterity|constitution|intelligence|wisdom|charisma) saving throw/i.exec(text);
  return m ? m[1]!.toLowerCase() : null;
}
